// What the status document and the console say of a download: each step's reason, the
// bytes, the last failure and the next retry's time.
import { describe, expect, it } from "vitest";
import { MIB } from "../../common/size.ts";
import { downloadingCondition, gaveUpLine, retryLine } from "./downloading.ts";
import { IDLE, nextAttempt, type Schedule } from "./schedule.ts";

const T0 = Date.parse("2026-12-05T10:00:00Z");

function failedTimes(n: number, reason = "no bytes for 60 s"): Schedule {
  let s = nextAttempt(IDLE, { kind: "target", target: "2.0.0" }, T0);
  let now = T0;
  for (let i = 0; i < n; i++) {
    s = nextAttempt(s, { kind: "begin" }, now);
    s = nextAttempt(s, { kind: "failed", reason }, now);
    now = s.nextAt ?? now;
  }
  return s;
}

describe("downloadingCondition", () => {
  it("is False Done when no download is under way", () => {
    expect(downloadingCondition(null)).toEqual({ status: "False", reason: "Done", message: "" });
  });

  it("is True Fetching with the bytes done of the total", () => {
    const schedule = nextAttempt(failedTimes(0), { kind: "begin" }, T0);
    expect(
      downloadingCondition({
        version: "2.0.0",
        step: "fetching",
        done: 3 * MIB,
        total: 410 * MIB,
        schedule,
      }),
    ).toEqual({
      status: "True",
      reason: "Fetching",
      message: "fetching release 2.0.0: 3145728 of 429916160 bytes (3 MiB of 410 MiB)",
    });
  });

  it("gives the last failure while a retry fetches", () => {
    const schedule = nextAttempt(failedTimes(2, "connection refused"), { kind: "begin" }, T0);
    expect(
      downloadingCondition({ version: "2.0.0", step: "fetching", done: 0, total: null, schedule })
        .message,
    ).toBe(
      "fetching release 2.0.0: 0 bytes (reading release.toml); the last attempt failed: connection refused",
    );
  });

  it("is True Verifying while the files are checked", () => {
    expect(
      downloadingCondition({
        version: "2.0.0",
        step: "verifying",
        done: MIB,
        total: 2 * MIB,
        schedule: failedTimes(0),
      }),
    ).toEqual({
      status: "True",
      reason: "Verifying",
      message:
        "verifying release 2.0.0 against its release.toml: 1048576 of 2097152 bytes (1 MiB of 2 MiB) checked",
    });
  });

  it("is True WaitingToRetry with the last failure and the next retry in RFC 3339 UTC", () => {
    // Failures at 10:00:00, 10:00:10: retry 2 comes 20 s after the second.
    expect(
      downloadingCondition({
        version: "2.0.0",
        step: "waiting",
        done: 5 * MIB,
        total: 10 * MIB,
        schedule: failedTimes(2),
      }),
    ).toEqual({
      status: "True",
      reason: "WaitingToRetry",
      message:
        "release 2.0.0: 5242880 of 10485760 bytes (5 MiB of 10 MiB) fetched; the last attempt failed: no bytes for 60 s; retry 2 at 2026-12-05T10:00:30Z",
    });
  });
});

describe("the console's lines", () => {
  it("prints one line per retry, with its number and time", () => {
    expect(retryLine("2.0.0", failedTimes(1))).toBe(
      "download of 2.0.0 failed (no bytes for 60 s); retry 1 at 2026-12-05T10:00:10Z",
    );
    expect(retryLine("2.0.0", failedTimes(3))).toBe(
      "download of 2.0.0 failed (no bytes for 60 s); retry 3 at 2026-12-05T10:01:10Z",
    );
  });

  it("says a download that stopped for good waits for another spec", () => {
    expect(gaveUpLine("2.0.0", "rootfs.img does not match release.toml")).toBe(
      "download of 2.0.0 stopped: rootfs.img does not match release.toml; no retry until the spec names another release or digest",
    );
  });
});
