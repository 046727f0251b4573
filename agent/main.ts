// The boot agent of an installed machine (DESIGN.md section 5), started by the release's
// /init once the state partition's disk is there. At every boot: (1) crash records from
// pstore into the crash journal, (2) a trial boot's health checks, then bless or reject,
// (3) a rejected trial's bookkeeping, (4) staging the spec's release into the other slot,
// (5) the status document. Decisions are boot-plan.ts's; this file reads and writes.
//
// Exit codes for /init: 0 the boot is complete; 3 hold the console (the reason is on it).
// Any other end during a trial makes /init reset the machine, so a trial never hangs.
import { mkdir, open, readdir, readFile, stat, unlink, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { writeFileAtomic } from "../common/atomic-file.ts";
import { mount, syncAll, umount } from "../tools/mount.ts";
import { rebootNow } from "../tools/reboot.ts";
import {
  blessActions,
  decideStaging,
  exhaustedTrials,
  exhaustTrial,
  identifyBoot,
  otherSlot,
  rejectionFor,
} from "./boot-plan.ts";
import { bootMarker, crashesFromPstore, type PstoreFile } from "./crash-parse.ts";
import { applyEntryActions, listEntries } from "./esp.ts";
import { checkHealth, type Fault } from "./health.ts";
import { appendCrashes, readJournal } from "./journal-io.ts";
import {
  bootDisk,
  bootId,
  kernelCommandLine,
  kmsg,
  loaderVariable,
  type Partition,
  partitions,
  say,
  Watchdog,
} from "./machine.ts";
import { readSpec, sourceDir } from "./spec.ts";
import { StagingRefused, stageRelease } from "./stage.ts";
import { type MachineStatus, machineStatus, type StatusInput } from "./status.ts";
import {
  type BootRecord,
  type CrashRecord,
  EMPTY_RECORD,
  type RebootPolicy,
  type Rejection,
  type Slot,
  type StagingRejectedReason,
} from "./types.ts";

const RELEASE_FILE = "/etc/liken/release.json";
const ESP = "/run/liken/esp";
const STATE = "/state";
const UPDATE = "/run/liken/update";
const PSTORE = "/sys/fs/pstore";
const RUN_STATUS = "/run/liken/status.json";
const TRIAL_MARK = "/run/liken/trial";
const STATE_STATUS = join(STATE, "status/status.json");
const STATE_RECORD = join(STATE, "boot/record.json");
const HOLD = 3;
const HEALTH_DEADLINE_MS = 120_000;
const FAILED_TRIAL_HOLD_MS = 10_000;

class Hold extends Error {}

function now(): string {
  return new Date().toISOString().replace(/\.\d{3}Z$/, "Z");
}

function step(line: string): void {
  say(`liken: ${line}`);
}

async function main(): Promise<number> {
  const release = JSON.parse(await readFile(RELEASE_FILE, "utf8")) as {
    version: string;
    fault: Fault | null;
  };
  const version = release.version;
  const cmdline = await kernelCommandLine();
  const id = await bootId();
  const slotWord = cmdline.get("liken.slot");
  const cmdlineSlot: Slot | null = slotWord === "a" || slotWord === "b" ? slotWord : null;
  const root = (cmdline.get("root") ?? "").replace(/^PARTUUID=/i, "");
  const disk = bootDisk(await partitions(), root);
  if (!disk) throw new Hold(`no disk holds the partition root=PARTUUID=${root} names`);
  const { esp, state, journal } = disk;
  const slotA = disk.slots.a;
  const slotB = disk.slots.b;
  if (!esp || !state || !journal || !slotA || !slotB)
    throw new Hold(`disk ${root} lacks a liken partition (esp, a, b, journal, state)`);
  const partUuids = { a: slotA.partUuid, b: slotB.partUuid };

  await mkdir(ESP, { recursive: true });
  await mount(esp.device, ESP, "vfat");
  const identity = identifyBoot({
    version,
    cmdlineSlot,
    loaderEntrySelected: await loaderVariable("LoaderEntrySelected"),
    loaderBootCountPath: await loaderVariable("LoaderBootCountPath"),
    entries: await listEntries(ESP),
  });
  if (identity.kind === "unknown") throw new Hold(identity.reason);
  const { slot } = identity;
  const trial = identity.kind === "trial";
  kmsg(bootMarker(id, version, slot, trial));
  step(`booting ${version} from slot ${slot}${trial ? " as its one trial" : ""}`);
  let watchdog: Watchdog | undefined;
  if (trial) {
    await writeFile(TRIAL_MARK, `${version} ${slot}\n`);
    watchdog = Watchdog.arm();
    step(
      watchdog ? "watchdog armed for the trial" : "no watchdog: a hang in the trial is not reset",
    );
    // systemd-boot counts the entry down before it boots it; if it did not, count it here.
    if (identity.entry) await applyEntryActions(ESP, exhaustTrial(identity.entry), partUuids);
  }

  await mkdir(STATE, { recursive: true });
  const stateMounted = await mount(state.device, STATE, "ext4").then(
    () => true,
    (error: Error) => {
      step(`the state partition ${state.device} does not mount: ${error.message.split("\n")[0]}`);
      return false;
    },
  );
  if (!stateMounted && !trial) throw new Hold(`the state partition ${state.device} does not mount`);

  // 1. Crash records.
  const installId = (await readJson<{ installId?: unknown }>(join(STATE, "identity.json")))
    ?.installId;
  const crashes = await collectCrashes(journal, typeof installId === "string" ? installId : null);
  const previous = await readJson<MachineStatus>(STATE_STATUS);
  let record = (await readJson<BootRecord>(STATE_RECORD)) ?? EMPTY_RECORD;
  const policy = await rebootPolicy();
  const base = { now: now(), bootId: id, slot, version, trial, previous };
  const lastCrash = crashes.newest;

  // 2. A trial's health checks.
  if (trial) {
    record = {
      ...record,
      trial: { version, slot, bootId: id, startedAt: now(), outcome: "Started", message: "" },
    };
    const stateWritable = stateMounted && (await saveRecord(record));
    step("trial: checking the slot, the state partition and the release");
    const health = await checkHealth({
      version,
      slot,
      slotPartition: slot === "a" ? slotA : slotB,
      esp: ESP,
      stateWritable,
      fault: release.fault,
      deadlineMs: HEALTH_DEADLINE_MS,
    });
    if (!health.healthy) {
      record = {
        ...record,
        trial: {
          ...(record.trial as NonNullable<BootRecord["trial"]>),
          outcome: "HealthCheckFailed",
          message: health.message,
        },
      };
      if (stateMounted) await saveRecord(record);
      await writeStatus(
        machineStatus({
          ...base,
          phase: "Failed",
          notReady: { reason: "HealthCheckFailed", message: health.message },
          rejection: record.rejection,
          lastCrash,
        }),
        stateMounted,
      );
      step(`trial of ${version} failed: ${health.message}`);
      step(
        `the machine returns to slot ${otherSlot(slot)}: resetting in ${FAILED_TRIAL_HOLD_MS / 1000} s`,
      );
      await sleep(FAILED_TRIAL_HOLD_MS);
      await rebootCleanly();
      return HOLD;
    }
    await applyEntryActions(ESP, blessActions(await listEntries(ESP), slot, version), partUuids);
    record = {
      trial: { ...(record.trial as NonNullable<BootRecord["trial"]>), outcome: "Blessed" },
      rejection: null,
    };
    await saveRecord(record);
    step(`trial passed: ${version} in slot ${slot} is the proven release`);
  } else {
    // 3. A rejected trial's bookkeeping.
    const [rejected] = exhaustedTrials(await listEntries(ESP), slot);
    if (rejected) {
      const rejection = rejectionFor(rejected, record, crashes.all, now());
      await applyEntryActions(
        ESP,
        exhaustedTrials(await listEntries(ESP), slot).map((e) => ({
          op: "remove" as const,
          fileName: e.fileName,
        })),
        partUuids,
      );
      record = { trial: null, rejection };
      await saveRecord(record);
      step(`release ${rejection.version} was rejected (${rejection.reason}): ${rejection.message}`);
    }
  }

  // 4. Staging.
  const staged = await staging({
    slot,
    version,
    record,
    esp: ESP,
    partUuids,
    slots: { a: slotA, b: slotB },
  });
  const statusInput: StatusInput = {
    ...base,
    now: now(),
    phase: "Running",
    rejection: record.rejection,
    lastCrash,
    ...staged.status,
  };
  if (staged.reboot && policy === "Automatic") {
    await writeStatus(machineStatus({ ...statusInput, phase: "Rebooting" }), true);
    watchdog?.disarm();
    step(
      `rebooting into ${staged.reboot.version} (slot ${staged.reboot.slot}) for its one trial boot`,
    );
    await rebootCleanly();
    return HOLD;
  }

  // 5. The status document.
  await writeStatus(
    machineStatus(staged.reboot ? { ...statusInput, rebootPending: staged.reboot } : statusInput),
    true,
  );
  watchdog?.disarm();
  await unlink(TRIAL_MARK).catch(() => undefined);
  await syncAll();
  await umount(STATE).catch(() => undefined);
  await umount(ESP).catch(() => undefined);
  say(`liken ${version} slot ${slot} up`);
  return 0;
}

interface Collected {
  readonly all: readonly CrashRecord[];
  readonly newest: CrashRecord | null;
}

// Step 1: pstore into the journal, then pstore cleared; a journal that does not verify, or
// that an earlier install wrote, keeps pstore as it is, so nothing is lost.
async function collectCrashes(partition: Partition, installId: string | null): Promise<Collected> {
  await mount("pstore", PSTORE, "pstore").catch(() => undefined);
  const files: PstoreFile[] = [];
  for (const name of await readdir(PSTORE).catch(() => [] as string[])) {
    const path = join(PSTORE, name);
    files.push({
      name,
      text: await readFile(path, "utf8").catch(() => ""),
      mtimeMs: (await stat(path).catch(() => ({ mtimeMs: Date.now() }))).mtimeMs,
    });
  }
  const fresh = crashesFromPstore(files);
  const handle = await open(partition.device, "r+");
  try {
    const journal = await readJournal(handle, 0, partition.size);
    if (!journal || (installId !== null && journal.header.installId !== installId)) {
      step(
        journal
          ? "the crash journal belongs to another install: crash records stay in pstore"
          : "the crash journal's header does not verify: crash records stay in pstore",
      );
      return { all: fresh, newest: fresh.at(-1) ?? null };
    }
    const after = await appendCrashes(handle, journal, fresh);
    for (const f of files) await unlink(join(PSTORE, f.name)).catch(() => undefined);
    const all = after.scan.records.map((r) => r.crash);
    step(
      `crash journal: ${all.length} record${all.length === 1 ? "" : "s"}, ${fresh.length} new${after.scan.skipped > 0 ? `, ${after.scan.skipped} torn or corrupt skipped` : ""}`,
    );
    return { all, newest: all[0] ?? null };
  } finally {
    await handle.close();
  }
}

interface Staged {
  readonly status: Pick<StatusInput, "stagingRejected">;
  readonly reboot?: { readonly slot: Slot; readonly version: string };
}

async function staging(input: {
  slot: Slot;
  version: string;
  record: BootRecord;
  esp: string;
  partUuids: Record<Slot, string>;
  slots: Record<Slot, Partition>;
}): Promise<Staged> {
  const medium = await mountUpdateMedium();
  let spec = await readSpec(join(STATE, "spec.toml"));
  if (medium) {
    const fromMedium = await readSpec(join(UPDATE, "spec.toml"));
    if (fromMedium.reading.kind !== "none") {
      spec = fromMedium;
      if (
        fromMedium.text !== null &&
        fromMedium.text !== (await readFile(join(STATE, "spec.toml"), "utf8").catch(() => null))
      )
        await writeFileAtomic(join(STATE, "spec.toml"), fromMedium.text, 0o644);
    }
  }
  try {
    const entries = await listEntries(input.esp);
    const { staging: decision, actions } = decideStaging({
      spec: spec.reading,
      running: { slot: input.slot, version: input.version },
      entries,
      rejection: input.record.rejection,
    });
    await applyEntryActions(input.esp, actions, input.partUuids);
    switch (decision.kind) {
      case "none":
        return { status: {} };
      case "refused":
        step(`staging refused (${decision.reason}): ${decision.message}`);
        return {
          status: { stagingRejected: { reason: decision.reason, message: decision.message } },
        };
      case "pending":
        return { status: {}, reboot: { slot: decision.slot, version: decision.version } };
      case "stage":
        step(`staging ${decision.version} into slot ${decision.slot}`);
        try {
          await stageRelease({
            decision,
            releaseDir: sourceDir(spec),
            esp: input.esp,
            slot: input.slots[decision.slot],
            partUuids: input.partUuids,
            progress: (line) => step(`staging ${decision.version}: ${line}`),
          });
        } catch (error) {
          const reason: StagingRejectedReason =
            error instanceof StagingRefused ? error.reason : "WriteFailed";
          const message = (error as Error).message.split("\n")[0] ?? "";
          step(`staging refused (${reason}): ${message}`);
          return { status: { stagingRejected: { reason, message } } };
        }
        step(`staged ${decision.version} in slot ${decision.slot} with one try`);
        return { status: {}, reboot: { slot: decision.slot, version: decision.version } };
      default:
        return decision satisfies never;
    }
  } finally {
    if (medium) await umount(UPDATE).catch(() => undefined);
  }
}

// A partition labelled LIKEN-UPDATE on any disk, ext4 or vfat, read-only.
async function mountUpdateMedium(): Promise<boolean> {
  const medium = (await partitions()).find((p) => p.label === "LIKEN-UPDATE");
  if (!medium) return false;
  await mkdir(UPDATE, { recursive: true });
  for (const type of ["ext4", "vfat"]) {
    const ok = await mount(medium.device, UPDATE, type, ["ro"]).then(
      () => true,
      () => false,
    );
    if (ok) {
      step(`update medium ${medium.device} (LIKEN-UPDATE, ${type})`);
      return true;
    }
  }
  step(`update medium ${medium.device} is neither ext4 nor vfat: ignored`);
  return false;
}

async function rebootPolicy(): Promise<RebootPolicy> {
  const identity = await readJson<{ rebootPolicy?: unknown }>(join(STATE, "identity.json"));
  return identity?.rebootPolicy === "Manual" ? "Manual" : "Automatic";
}

async function saveRecord(record: BootRecord): Promise<boolean> {
  return writeFileAtomic(STATE_RECORD, `${JSON.stringify(record, null, 2)}\n`).then(
    () => true,
    () => false,
  );
}

async function writeStatus(status: MachineStatus, toState: boolean): Promise<void> {
  const text = `${JSON.stringify(status, null, 2)}\n`;
  await writeFileAtomic(RUN_STATUS, text);
  if (toState) await writeFileAtomic(STATE_STATUS, text).catch(() => undefined);
}

async function readJson<T>(path: string): Promise<T | null> {
  try {
    return JSON.parse(await readFile(path, "utf8")) as T;
  } catch {
    return null;
  }
}

async function rebootCleanly(): Promise<void> {
  await syncAll().catch(() => undefined);
  await umount(UPDATE).catch(() => undefined);
  await umount(STATE).catch(() => undefined);
  await umount(ESP).catch(() => undefined);
  await rebootNow();
  await sleep(60_000);
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

main().then(
  (code) => process.exit(code),
  (error: Error) => {
    if (error instanceof Hold) {
      step(error.message);
      process.exit(HOLD);
    }
    step(`the boot agent failed: ${error.message.split("\n")[0]}`);
    process.exit(1);
  },
);

export type { Rejection };
