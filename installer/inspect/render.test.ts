// The Crashes lines of `inspect` for people, from an inspection built in memory (the CLI
// tests in inspect.test.ts read real installed images).
import { describe, expect, it } from "vitest";
import type { CrashRecord } from "../../agent/types.ts";
import { renderInspection } from "./render.ts";
import type { InspectedJournal, Inspection } from "./types.ts";

const INSTALL_ID = "732ba6d2-aadd-488a-ba2e-165751dff406";

function inspection(journal: InspectedJournal | null, crashes: CrashRecord[] = []): Inspection {
  return {
    path: "disk.img",
    size: 32 * 1024 ** 3,
    claim: {
      cluster: "mycluster",
      machine: "leader-1",
      installId: INSTALL_ID,
      release: "1.0.0",
      use: "system",
      complete: true,
      createdAt: "2026-12-01T00:47:25.000Z",
      copies: 2,
    },
    partitions: [],
    slots: { a: { version: null, hashMatches: null }, b: { version: null, hashMatches: null } },
    entries: [],
    loaderConf: null,
    status: null,
    installer: null,
    identity: null,
    spec: null,
    journal,
    crashes,
    problems: [],
  } as Inspection;
}

function crashesPart(i: Inspection): string {
  const out = renderInspection(i);
  return out.slice(out.indexOf("\nCrashes: ") + 1);
}

const PANIC: CrashRecord = {
  id: "a1b2c3d4e5f60718",
  time: "2026-12-01T04:51:02Z",
  bootId: "0f4c8f3e-9a51-4a8e-b2a4-6f0d1c2e3b4a",
  release: "2.0.0",
  slot: "b",
  kind: "Panic",
  lines: [
    "[   31.101234] sysrq: Trigger a crash",
    "[   31.101500] Kernel panic - not syncing: sysrq triggered crash",
    "[   31.101700] CPU: 0 PID: 412 Comm: sh Not tainted 6.1.0-27-amd64 #1  Debian 6.1.115-1",
  ],
};

describe("the Crashes lines", () => {
  const valid = (records: number, skipped = 0): InspectedJournal => ({
    valid: true,
    installId: INSTALL_ID,
    records,
    skipped,
  });

  it("says there are none", () => {
    expect(crashesPart(inspection(valid(0)))).toBe("Crashes: 0 recorded\n");
  });

  it("counts the records and shows the newest: time, release, slot and panic line", () => {
    const older = { ...PANIC, id: "1", time: "2026-11-30T10:00:00Z", release: "1.0.0", slot: "a" };
    expect(crashesPart(inspection(valid(2), [PANIC, older as CrashRecord]))).toBe(
      "Crashes: 2 recorded\n  newest 2026-12-01T04:51:02Z, release 2.0.0 slot b: Kernel panic - not syncing: sysrq triggered crash\n",
    );
  });

  it("counts torn or damaged records", () => {
    expect(crashesPart(inspection(valid(1, 3), [PANIC]))).toMatch(
      /^Crashes: 1 recorded \(3 torn or damaged records skipped\)\n/,
    );
    expect(crashesPart(inspection(valid(0, 1)))).toBe(
      "Crashes: 0 recorded (1 torn or damaged record skipped)\n",
    );
  });

  it("says when the release is unknown, and falls back to the last line without a panic line", () => {
    const oops: CrashRecord = {
      ...PANIC,
      bootId: "",
      release: null,
      slot: null,
      kind: "Oops",
      lines: ["[  842.310011] BUG: kernel NULL pointer dereference, address: 0000000000000008"],
    };
    expect(crashesPart(inspection(valid(1), [oops]))).toBe(
      "Crashes: 1 recorded\n  newest 2026-12-01T04:51:02Z, release unknown: BUG: kernel NULL pointer dereference, address: 0000000000000008\n",
    );
    expect(crashesPart(inspection(valid(1), [{ ...oops, lines: [] }]))).toContain(
      "release unknown: Oops\n",
    );
  });

  it("prints no control characters from the disk", () => {
    const evil = { ...PANIC, lines: ["[ 1.0] Kernel panic - not syncing: \u001b[2J\u0007gone"] };
    const out = crashesPart(inspection(valid(1), [evil]));
    expect(out).toContain("Kernel panic - not syncing: ?[2J?gone\n");
    expect(out.replaceAll("\n", "")).not.toMatch(/\p{Cc}/u);
  });

  it("says why there are no records: no journal, a header that does not verify, another install", () => {
    expect(crashesPart(inspection(null))).toBe("Crashes: no crash journal\n");
    expect(crashesPart(inspection({ valid: false, installId: null, records: 0, skipped: 0 }))).toBe(
      "Crashes: crash journal header not valid\n",
    );
    expect(
      crashesPart(
        inspection({
          valid: true,
          installId: "1c0ffee0-1234-4abc-8def-0123456789ab",
          records: 0,
          skipped: 0,
        }),
      ),
    ).toBe("Crashes: the crash journal belongs to another install\n");
  });
});
