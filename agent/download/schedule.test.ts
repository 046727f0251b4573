// The retry schedule of the operator's manual: 10 s before the first retry, doubling to
// 2 min, and a new target at once.
import { describe, expect, it } from "vitest";
import { IDLE, nextAttempt, retryDelayMs, type Schedule, waitMs } from "./schedule.ts";

const T0 = Date.parse("2026-12-05T10:00:00Z");
const S = 1000;

describe("retryDelayMs", () => {
  it("is 10, 20, 40, 80, then 120 s for ever", () => {
    expect([1, 2, 3, 4, 5, 6, 7, 50].map(retryDelayMs)).toEqual(
      [10, 20, 40, 80, 120, 120, 120, 120].map((s) => s * S),
    );
  });
});

describe("nextAttempt", () => {
  it("starts a new target at once", () => {
    const s = nextAttempt(IDLE, { kind: "target", target: "2.0.0" }, T0);
    expect(s).toEqual({ ...IDLE, target: "2.0.0", nextAt: T0 });
    expect(waitMs(s, T0 + 5 * S)).toBe(0);
  });

  it("waits 10 s after the first failure, doubling after each up to 2 min", () => {
    let s = nextAttempt(IDLE, { kind: "target", target: "2.0.0" }, T0);
    let now = T0;
    const waits: number[] = [];
    for (let i = 0; i < 7; i++) {
      s = nextAttempt(s, { kind: "begin" }, now);
      expect(s.nextAt).toBeNull(); // an attempt runs: nothing to plan
      now += 60 * S; // the stall watcher's minute
      s = nextAttempt(s, { kind: "failed", reason: "no bytes for 60 s" }, now);
      waits.push(((s.nextAt ?? 0) - now) / S);
      now = s.nextAt ?? now;
    }
    expect(waits).toEqual([10, 20, 40, 80, 120, 120, 120]);
    expect(s).toMatchObject({ attempts: 7, failures: 7, lastFailure: "no bytes for 60 s" });
  });

  it("keeps the last failure's reason and counts the attempts", () => {
    let s = nextAttempt(IDLE, { kind: "target", target: "2.0.0" }, T0);
    s = nextAttempt(s, { kind: "begin" }, T0);
    s = nextAttempt(s, { kind: "failed", reason: "connection refused" }, T0 + S);
    expect(s).toEqual({
      target: "2.0.0",
      attempts: 1,
      failures: 1,
      lastFailure: "connection refused",
      nextAt: T0 + 11 * S,
      done: false,
    });
    expect(waitMs(s, T0 + 5 * S)).toBe(6 * S);
    s = nextAttempt(s, { kind: "begin" }, T0 + 11 * S);
    s = nextAttempt(s, { kind: "failed", reason: "HTTP 503" }, T0 + 12 * S);
    expect(s).toMatchObject({ attempts: 2, failures: 2, lastFailure: "HTTP 503" });
    expect(s.nextAt).toBe(T0 + 32 * S);
  });

  it("starts a changed target at once, without the wait, from a clean count", () => {
    let s = nextAttempt(IDLE, { kind: "target", target: "2.0.0" }, T0);
    for (let i = 0; i < 4; i++) {
      s = nextAttempt(s, { kind: "begin" }, T0);
      s = nextAttempt(s, { kind: "failed", reason: "no bytes for 60 s" }, T0);
    }
    expect(s.nextAt).toBe(T0 + 80 * S);
    const changed = nextAttempt(s, { kind: "target", target: "2.0.1" }, T0 + S);
    expect(changed).toEqual({ ...IDLE, target: "2.0.1", nextAt: T0 + S });
  });

  it("changes nothing when the spec names the same target again", () => {
    let s = nextAttempt(IDLE, { kind: "target", target: "2.0.0" }, T0);
    s = nextAttempt(s, { kind: "begin" }, T0);
    s = nextAttempt(s, { kind: "failed", reason: "HTTP 404" }, T0);
    expect(nextAttempt(s, { kind: "target", target: "2.0.0" }, T0 + 5 * S)).toBe(s);
    const done = nextAttempt(nextAttempt(s, { kind: "begin" }, T0), { kind: "done" }, T0);
    expect(nextAttempt(done, { kind: "target", target: "2.0.0" }, T0)).toBe(done);
  });

  it("plans nothing after the target was fetched, until it changes", () => {
    let s = nextAttempt(IDLE, { kind: "target", target: "2.0.0" }, T0);
    s = nextAttempt(s, { kind: "begin" }, T0);
    s = nextAttempt(s, { kind: "done" }, T0 + 30 * S);
    expect(s).toMatchObject({ target: "2.0.0", done: true, nextAt: null });
    expect(waitMs(s, T0)).toBeNull();
  });

  it("gives up a target whose digest does not match: no retry until the target changes", () => {
    let s = nextAttempt(IDLE, { kind: "target", target: "2.0.0" }, T0);
    s = nextAttempt(s, { kind: "begin" }, T0);
    s = nextAttempt(s, { kind: "gaveUp", reason: "rootfs.img does not match" }, T0);
    expect(s).toMatchObject({
      nextAt: null,
      done: false,
      lastFailure: "rootfs.img does not match",
    });
    expect(nextAttempt(s, { kind: "target", target: "2.0.0" }, T0)).toBe(s);
    expect(nextAttempt(s, { kind: "target", target: "2.0.1" }, T0).nextAt).toBe(T0);
  });

  it("does nothing without a target, and a target of null stops the retries", () => {
    for (const event of [
      { kind: "begin" },
      { kind: "failed", reason: "x" },
      { kind: "gaveUp", reason: "x" },
      { kind: "done" },
      { kind: "target", target: null },
    ] as const)
      expect(nextAttempt(IDLE, event, T0)).toBe(IDLE);
    let s: Schedule = nextAttempt(IDLE, { kind: "target", target: "2.0.0" }, T0);
    s = nextAttempt(s, { kind: "begin" }, T0);
    s = nextAttempt(s, { kind: "failed", reason: "x" }, T0);
    expect(nextAttempt(s, { kind: "target", target: null }, T0)).toEqual(IDLE);
  });
});
