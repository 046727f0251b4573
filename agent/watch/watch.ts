// The agent's watch on a running machine (docs/rollback.md, The agent's watch; docs/design.md
// section 5): every few seconds it reads the spec in force, and when it names another
// release, stages it as the boot does (staging-step.ts's stageSpec). A release named by
// url is downloaded first (download/fetch-release.ts) on the schedule of
// download/schedule.ts, after the other slot's staged entry is withdrawn. What to do next
// is plan.ts's; this loop carries it out, one step at a time, and writes the status after
// each change of a condition. Everything it touches comes in as WatchOptions, so a test runs
// it against folders and a server on 127.0.0.1.
import { firstLine, LikenError } from "../../common/errors.ts";
import { rfc3339 } from "../../common/time.ts";
import type { MachineStatus } from "../../formats/machine-status.ts";
import { otherSlot } from "../boot-plan.ts";
import { DownloadError } from "../download/download-error.ts";
import { gaveUpLine, retryLine } from "../download/downloading.ts";
import { fetchRelease } from "../download/fetch-release.ts";
import { IDLE, nextAttempt, type Schedule } from "../download/schedule.ts";
import { applyEntryActions, listEntries } from "../esp.ts";
import type { SpecFile } from "../spec.ts";
import type { Staged } from "../staging-step.ts";
import type { Entry, RebootPolicy, Slot } from "../types.ts";
import { bootRejection, type WatchView, withWatchConditions } from "./conditions.ts";
import {
  type Outcome,
  type Plan,
  plan,
  type StagedEntry,
  scheduleFor,
  type Target,
  targetOf,
  WRITE_RETRY_MS,
} from "./plan.ts";

export interface WatchOptions {
  readonly running: { readonly slot: Slot; readonly version: string };
  /** The mounted ESP. */
  readonly esp: string;
  readonly partUuids: Readonly<Record<Slot, string>>;
  readonly rebootPolicy: RebootPolicy;
  /** The spec in force now: an update medium's, else the state partition's. */
  readonly readSpec: () => Promise<SpecFile>;
  /** Staging as at boot, from `releaseDir` (null: the spec's source). */
  readonly stage: (spec: SpecFile, releaseDir: string | null) => Promise<Staged>;
  /** The download's folder (in memory on a machine). */
  readonly downloadDir: string;
  /** No byte for this long stops a download: 60 s on a machine. */
  readonly stallMs: number;
  /** How often the spec is read. */
  readonly pollMs: number;
  /** The status document: the boot's, read back, and written whole. */
  readonly readStatus: () => Promise<MachineStatus | null>;
  readonly writeStatus: (status: MachineStatus) => Promise<void>;
  /** The machine reboots into the staged release's trial; does not return on a machine. */
  readonly reboot: (staged: NonNullable<Staged["reboot"]>) => Promise<void>;
  /**
   * Runs a write to the ESP or the state partition: on a machine they are mounted
   * read-only between writes, so a reset finds them written out.
   */
  readonly writing: <T>(write: () => Promise<T>) => Promise<T>;
  /** A console line (the agent's `liken: ` lines). */
  readonly say: (line: string) => void;
  readonly signal: AbortSignal;
}

interface Download {
  readonly key: string;
  readonly controller: AbortController;
  readonly finished: Promise<void>;
}

/** The watch's state between its steps. */
interface State {
  schedule: Schedule;
  outcome: Outcome | null;
  view: WatchView;
  download: Download | null;
  written: { key: string; at: number } | null;
  status: MachineStatus | null;
  wake: () => void;
}

/** Status writes for a download's progress alone, at most one in this long. */
const PROGRESS_WRITE_MS = 5_000;

export async function watch(o: WatchOptions): Promise<void> {
  const status = await o.readStatus();
  const s: State = {
    schedule: IDLE,
    outcome: null,
    view: {
      activity: null,
      stagingFailed: null,
      stagingRejected: status && bootRejection(status),
      rebootPending: null,
    },
    download: null,
    written: null,
    status,
    wake: () => undefined,
  };
  s.view = {
    ...s.view,
    rebootPending: pendingOf(o, stagedEntries(await listEntries(o.esp), otherSlot(o.running.slot))),
  };
  // The boot's document holds what the boot knew: written again only once a condition changes.
  if (status)
    s.written = {
      key: conditionsKey(withWatchConditions(status, s.view, status.updatedAt)),
      at: 0,
    };
  // The boot staged the spec it found, except a release it must download.
  const first = await o.readSpec();
  const firstTarget = targetOf(first.reading, first.text, first.folder);
  if (firstTarget && !firstTarget.download) s.outcome = { key: firstTarget.key, kind: "handled" };
  o.say("the agent watches for a new spec (state partition and update media)");
  while (!o.signal.aborted) {
    const wait = await tick(o, s).catch((error: unknown) => {
      // A step that failed (a disk read, the ESP's listing) is tried again at the next poll:
      // the watch keeps its schedule and download rather than end.
      o.say(
        `the agent's watch could not read the machine: ${firstLine(error)}; it tries again in ${o.pollMs / 1000} s`,
      );
      return null;
    });
    await publish(o, s);
    await sleepOrWake(s, Math.min(wait ?? o.pollMs, o.pollMs), o.signal);
  }
  s.download?.controller.abort();
  await s.download?.finished;
}

// One step: the spec read, the running download stopped if its target changed, the plan
// carried out. Returns how long until the next step is due (null: the poll's period).
async function tick(o: WatchOptions, s: State): Promise<number | null> {
  const spec = await o.readSpec();
  const target = targetOf(spec.reading, spec.text, spec.folder);
  const now = Date.now();
  s.schedule = scheduleFor(s.schedule, target, now);
  if (s.download && s.download.key !== s.schedule.target) {
    o.say("the spec names another release: the download in progress stops");
    s.download.controller.abort();
    await s.download.finished;
  }
  const staged = stagedEntries(await listEntries(o.esp), otherSlot(o.running.slot));
  s.view = { ...s.view, rebootPending: pendingOf(o, staged) };
  if (s.download) return null;
  const next = plan({
    target,
    running: o.running,
    staged,
    schedule: s.schedule,
    outcome: s.outcome,
    now,
  });
  return carryOut(o, s, next, target as Target, spec);
}

async function carryOut(
  o: WatchOptions,
  s: State,
  next: Plan,
  target: Target,
  spec: SpecFile,
): Promise<number | null> {
  switch (next.kind) {
    case "none":
      return null;
    case "wait":
      return next.ms;
    case "withdraw":
      await withdraw(o, s, target, next.fileNames);
      return 0;
    case "download":
      s.schedule = nextAttempt(s.schedule, { kind: "begin" }, Date.now());
      s.download = startDownload(o, s, next);
      return null;
    case "stage":
      await stage(o, s, target, spec, next.downloaded);
      return 0;
    default:
      return next satisfies never;
  }
}

// The other slot's staged entries go; the slot's data is left. Until they are gone, nothing
// is downloaded, and StagingFailed says why.
async function withdraw(
  o: WatchOptions,
  s: State,
  target: Target,
  fileNames: readonly string[],
): Promise<void> {
  o.say(
    `withdrawing the staged entry ${fileNames.join(", ")} before ${target.version} is downloaded`,
  );
  try {
    await o.writing(() =>
      applyEntryActions(
        o.esp,
        fileNames.map((fileName) => ({ op: "remove" as const, fileName })),
        o.partUuids,
      ),
    );
    // An entry that would not go is no error of applyEntryActions (one already gone is
    // removed): the ESP read back says whether the withdrawal is written.
    const left = (await listEntries(o.esp)).filter((e) => fileNames.includes(e.fileName));
    if (left.length > 0)
      throw new Error(`${left.map((e) => e.fileName).join(", ")} is still there`);
    s.view = { ...s.view, stagingFailed: null };
  } catch (error) {
    const message = `the staged entry ${fileNames.join(", ")} on the ESP could not be withdrawn: ${firstLine(error)}; check the system disk (liken-stick inspect), the machine tries again every ${WRITE_RETRY_MS / 1000} s`;
    o.say(message);
    s.view = { ...s.view, stagingFailed: { reason: "WithdrawFailed", message } };
    s.outcome = {
      key: target.key,
      kind: "withdrawFailed",
      retryAt: Date.now() + WRITE_RETRY_MS,
    };
  }
}

async function stage(
  o: WatchOptions,
  s: State,
  target: Target,
  spec: SpecFile,
  downloaded: boolean,
): Promise<void> {
  let staged: Staged;
  try {
    staged = await o.writing(() => o.stage(spec, downloaded ? o.downloadDir : null));
  } catch (error) {
    // The staging could not write the slot's entries: the boot's path ends the same way.
    const message = `release ${target.version} could not be staged: ${firstLine(error)}; check the system disk (liken-stick inspect), the machine tries again every ${WRITE_RETRY_MS / 1000} s`;
    o.say(message);
    s.view = { ...s.view, stagingFailed: { reason: "WriteFailed", message }, activity: null };
    s.outcome = { key: target.key, kind: "writeFailed", retryAt: Date.now() + WRITE_RETRY_MS };
    return;
  }
  s.outcome = { key: target.key, kind: staged.download ? "fetch" : "handled" };
  s.view = {
    ...s.view,
    stagingFailed: null,
    stagingRejected: staged.status.stagingRejected ?? null,
    rebootPending: staged.reboot ?? null,
  };
  if (!staged.reboot || staged.download) return;
  if (staged.rebootNow || o.rebootPolicy === "Automatic") {
    await publish(o, s, "Rebooting");
    await o.reboot(staged.reboot);
    return;
  }
  o.say(
    `${staged.reboot.version} is staged in slot ${staged.reboot.slot} and boots once as a trial at the next reboot (reboot_policy Manual)`,
  );
}

function startDownload(
  o: WatchOptions,
  s: State,
  next: Extract<Plan, { kind: "download" }>,
): Download {
  const key = s.schedule.target as string;
  const controller = new AbortController();
  const { version } = next;
  o.say(`downloading release ${version} from ${next.download.url}`);
  s.view = {
    ...s.view,
    activity: { version, step: "fetching", done: 0, total: null, schedule: s.schedule },
  };
  const finished = fetchRelease({
    url: next.download.url,
    releaseSha256: next.download.releaseSha256,
    dir: o.downloadDir,
    stallMs: o.stallMs,
    signal: controller.signal,
    onProgress: (p) => {
      s.view = {
        ...s.view,
        activity: { version, step: p.step, done: p.done, total: p.total, schedule: s.schedule },
      };
    },
  })
    .then(
      () => {
        s.schedule = nextAttempt(s.schedule, { kind: "done" }, Date.now());
        s.view = { ...s.view, activity: null };
        o.say(`downloaded release ${version} and verified it against release_sha256`);
      },
      (error: unknown) => downloadFailed(o, s, version, error),
    )
    .finally(() => {
      s.download = null;
      s.wake();
    });
  return { key, controller, finished };
}

// A failure worth another attempt waits on the schedule; a digest that does not match (or a
// release.toml that is no release's) stops until the spec changes; a stop is the watch's own.
function downloadFailed(o: WatchOptions, s: State, version: string, error: unknown): void {
  const now = Date.now();
  if (error instanceof DownloadError && error.failure === "Stopped") {
    s.view = { ...s.view, activity: null };
    return;
  }
  const gaveUp =
    (error instanceof DownloadError && !error.retry) ||
    (error instanceof LikenError && !(error instanceof DownloadError));
  if (gaveUp) {
    const why = error instanceof DownloadError ? error.why : firstLine(error);
    s.schedule = nextAttempt(s.schedule, { kind: "gaveUp", reason: why }, now);
    const reason = error instanceof DownloadError ? "DigestMismatch" : "ReleaseInvalid";
    s.view = { ...s.view, activity: null, stagingRejected: { reason, message: firstLine(error) } };
    o.say(gaveUpLine(version, firstLine(error)));
    return;
  }
  const why = error instanceof DownloadError ? error.why : firstLine(error);
  s.schedule = nextAttempt(s.schedule, { kind: "failed", reason: why }, now);
  const done = s.view.activity?.done ?? 0;
  const total = s.view.activity?.total ?? null;
  s.view = { ...s.view, activity: { version, step: "waiting", done, total, schedule: s.schedule } };
  o.say(retryLine(version, s.schedule));
}

// The watch's conditions into the document, when one changed; a download's progress alone
// at most every few seconds.
async function publish(o: WatchOptions, s: State, phase?: MachineStatus["phase"]): Promise<void> {
  if (!s.status) return;
  if (s.view.activity)
    s.view = { ...s.view, activity: { ...s.view.activity, schedule: s.schedule } };
  const now = Date.now();
  const next = withWatchConditions(s.status, s.view, rfc3339(new Date(now)), phase);
  const key = conditionsKey(next);
  // The same conditions but for Downloading's bytes: a progress write, kept to one in a while.
  const shape = (conditionsKey: string) =>
    JSON.stringify(
      (JSON.parse(conditionsKey) as { type: string; message: string }[]).map((c) =>
        c.type === "Downloading" ? { ...c, message: "" } : c,
      ),
    );
  if (!phase && s.written) {
    if (s.written.key === key) return;
    if (shape(s.written.key) === shape(key) && now - s.written.at < PROGRESS_WRITE_MS) return;
  }
  // A state partition that will not go read-write (a disk refusing writes) still leaves
  // /run's copy written: writeStatus writes the state's copy at its best.
  await o.writing(() => o.writeStatus(next)).catch(() => o.writeStatus(next));
  s.status = next;
  s.written = { key, at: now };
}

function conditionsKey(status: MachineStatus): string {
  return JSON.stringify(status.conditions.map(({ lastTransitionTime: _, ...c }) => c));
}

// RebootPending as the ESP says it: the other slot's counted entry.
function pendingOf(o: WatchOptions, staged: readonly StagedEntry[]): WatchView["rebootPending"] {
  const [pending] = staged;
  return pending ? { slot: otherSlot(o.running.slot), version: pending.version } : null;
}

function stagedEntries(entries: readonly Entry[], other: Slot): StagedEntry[] {
  return entries
    .filter((e) => e.slot === other && e.triesLeft !== null && e.triesLeft > 0)
    .map((e) => ({ version: e.version, fileName: e.fileName }));
}

function sleepOrWake(s: State, ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      clearTimeout(timer);
      signal.removeEventListener("abort", done);
      s.wake = () => undefined;
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal.addEventListener("abort", done);
    s.wake = done;
  });
}
