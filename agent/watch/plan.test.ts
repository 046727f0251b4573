// The watch's next step (docs/rollback.md, The agent's watch), for each case of issue 45: a
// new url → download; the running version → nothing; another release staged → withdraw
// first; a withdrawal that failed → no download; a digest that does not match → no retry
// until the spec changes; a changed target during a retry's wait → at once.
import { describe, expect, it } from "vitest";
import type { SpecReading } from "../boot-plan.ts";
import { IDLE, nextAttempt, type Schedule } from "../download/schedule.ts";
import {
  type Outcome,
  type PlanInput,
  plan,
  scheduleFor,
  targetOf,
  WRITE_RETRY_MS,
} from "./plan.ts";

const T0 = Date.parse("2026-12-05T10:00:00Z");
const S = 1000;
const SHA = "a".repeat(64);
const URL2 = "http://10.0.0.5/releases/2.0.0/";

function urlSpec(version: string, url = URL2, sha = SHA): SpecReading {
  return {
    kind: "spec",
    spec: {
      version,
      source: null,
      download: { url, releaseSha256: sha },
      rebootNow: false,
      storage: [],
    },
  };
}

function sourceSpec(version: string): SpecReading {
  return { kind: "spec", spec: { version, source: "release", rebootNow: false, storage: [] } };
}

/** The watch's view of a spec: its target, and the schedule set to it at `now`. */
function input(
  reading: SpecReading,
  more: Partial<Omit<PlanInput, "target">> & { schedule?: Schedule } = {},
): PlanInput {
  const target = targetOf(reading, JSON.stringify(reading), "/state");
  const now = more.now ?? T0;
  return {
    target,
    running: { slot: "a", version: "1.0.0" },
    staged: [],
    outcome: null,
    ...more,
    now,
    schedule: scheduleFor(more.schedule ?? IDLE, target, now),
  };
}

/** What staging said of a url spec: its release must be downloaded. */
function fetching(reading: SpecReading): Outcome {
  return { key: targetOf(reading, JSON.stringify(reading), "/state")?.key ?? "", kind: "fetch" };
}

describe("plan", () => {
  it("does nothing without a spec", () => {
    expect(plan(input({ kind: "none" }))).toEqual({ kind: "none" });
  });

  it("stages a new spec as the boot does first (staging says whether to download)", () => {
    expect(plan(input(urlSpec("2.0.0")))).toEqual({ kind: "stage", downloaded: false });
    expect(plan(input(sourceSpec("2.0.0")))).toEqual({ kind: "stage", downloaded: false });
    expect(plan(input({ kind: "invalid", message: "bad" }))).toEqual({
      kind: "stage",
      downloaded: false,
    });
  });

  it("downloads a new url target at once", () => {
    const spec = urlSpec("2.0.0");
    expect(plan(input(spec, { outcome: fetching(spec) }))).toEqual({
      kind: "download",
      version: "2.0.0",
      download: { url: URL2, releaseSha256: SHA },
    });
  });

  it("does nothing for the running version when nothing is staged", () => {
    expect(plan(input(urlSpec("1.0.0")))).toEqual({ kind: "none" });
  });

  it("stages the running version once when another is staged: staging withdraws it", () => {
    const staged = [{ version: "2.0.0", fileName: "liken-b-2.0.0+1-0.conf" }];
    expect(plan(input(urlSpec("1.0.0"), { staged }))).toEqual({ kind: "stage", downloaded: false });
  });

  it("does not repeat a target it handled", () => {
    const spec = sourceSpec("2.0.0");
    const key = targetOf(spec, JSON.stringify(spec), "/state")?.key ?? "";
    expect(plan(input(spec, { outcome: { key, kind: "handled" } }))).toEqual({ kind: "none" });
    // Another spec is another target.
    expect(plan(input(sourceSpec("2.0.1"), { outcome: { key, kind: "handled" } }))).toEqual({
      kind: "stage",
      downloaded: false,
    });
  });

  it("withdraws another staged release before it downloads", () => {
    const spec = urlSpec("2.0.1", "http://10.0.0.5/releases/2.0.1/");
    const staged = [{ version: "2.0.0", fileName: "liken-b-2.0.0+1-0.conf" }];
    expect(plan(input(spec, { staged, outcome: fetching(spec) }))).toEqual({
      kind: "withdraw",
      fileNames: ["liken-b-2.0.0+1-0.conf"],
    });
  });

  it("downloads nothing while a withdrawal failed, and tries the withdrawal again later", () => {
    const spec = urlSpec("2.0.1", "http://10.0.0.5/releases/2.0.1/");
    const staged = [{ version: "2.0.0", fileName: "liken-b-2.0.0+1-0.conf" }];
    const key = fetching(spec).key;
    const outcome: Outcome = { key, kind: "withdrawFailed", retryAt: T0 + WRITE_RETRY_MS };
    expect(plan(input(spec, { staged, outcome }))).toEqual({ kind: "wait", ms: WRITE_RETRY_MS });
    expect(plan(input(spec, { staged, outcome, now: T0 + WRITE_RETRY_MS }))).toEqual({
      kind: "withdraw",
      fileNames: ["liken-b-2.0.0+1-0.conf"],
    });
  });

  it("stages again, as a new spec, 30 s after a staging that could not write", () => {
    const spec = urlSpec("2.0.1", "http://10.0.0.5/releases/2.0.1/");
    const key = fetching(spec).key;
    const outcome: Outcome = { key, kind: "writeFailed", retryAt: T0 + WRITE_RETRY_MS };
    expect(plan(input(spec, { outcome }))).toEqual({ kind: "wait", ms: WRITE_RETRY_MS });
    expect(plan(input(spec, { outcome, now: T0 + WRITE_RETRY_MS }))).toEqual({
      kind: "stage",
      downloaded: false,
    });
  });

  it("stages the downloaded release once the download is done", () => {
    const spec = urlSpec("2.0.0");
    let schedule = scheduleFor(IDLE, input(spec).target, T0);
    schedule = nextAttempt(nextAttempt(schedule, { kind: "begin" }, T0), { kind: "done" }, T0);
    expect(plan(input(spec, { schedule, outcome: fetching(spec) }))).toEqual({
      kind: "stage",
      downloaded: true,
    });
  });

  it("waits for the retry after a failure, then downloads", () => {
    const spec = urlSpec("2.0.0");
    let schedule = scheduleFor(IDLE, input(spec).target, T0);
    schedule = nextAttempt(schedule, { kind: "begin" }, T0);
    schedule = nextAttempt(schedule, { kind: "failed", reason: "no bytes for 60 s" }, T0);
    const outcome = fetching(spec);
    expect(plan(input(spec, { schedule, outcome }))).toEqual({ kind: "wait", ms: 10 * S });
    expect(plan(input(spec, { schedule, outcome, now: T0 + 10 * S }))).toMatchObject({
      kind: "download",
    });
  });

  it("does not retry a digest that does not match until the spec changes", () => {
    const spec = urlSpec("2.0.0");
    let schedule = scheduleFor(IDLE, input(spec).target, T0);
    schedule = nextAttempt(schedule, { kind: "begin" }, T0);
    schedule = nextAttempt(schedule, { kind: "gaveUp", reason: "release.toml does not match" }, T0);
    const outcome = fetching(spec);
    expect(plan(input(spec, { schedule, outcome, now: T0 + 3600 * S }))).toEqual({ kind: "none" });
    // Another digest is another target: staged as new, then downloaded at once.
    const fixed = urlSpec("2.0.0", URL2, "b".repeat(64));
    const later = input(fixed, { schedule, outcome: fetching(fixed), now: T0 + 3600 * S });
    expect(plan(later)).toMatchObject({ kind: "download" });
  });

  it("starts a changed target at once during a retry's wait", () => {
    const spec = urlSpec("2.0.0");
    let schedule = scheduleFor(IDLE, input(spec).target, T0);
    schedule = nextAttempt(schedule, { kind: "begin" }, T0);
    schedule = nextAttempt(schedule, { kind: "failed", reason: "connection refused" }, T0);
    const next = urlSpec("2.0.1", "http://10.0.0.5/releases/2.0.1/");
    const p = plan(input(next, { schedule, outcome: fetching(next), now: T0 + 2 * S }));
    expect(p).toEqual({
      kind: "download",
      version: "2.0.1",
      download: { url: "http://10.0.0.5/releases/2.0.1/", releaseSha256: SHA },
    });
  });

  it("keeps the schedule for a spec that changes but names the same download", () => {
    const a = input(urlSpec("2.0.0"));
    const b = targetOf({ ...urlSpec("2.0.0") }, "another text", "/state");
    expect(scheduleFor(a.schedule, b, T0 + S)).toBe(a.schedule);
  });
});
