// The boot agent's decisions as an operator sees their effect: which slot a boot is taken
// to be from, which files in loader/entries are written and removed (and in what order),
// why a trial is reported as rejected, and whether the spec's release is staged.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { parseEntryName } from "../formats/entry-name.ts";
import {
  type BootFacts,
  blessActions,
  decideStaging,
  type EntryAction,
  exhaustedTrials,
  exhaustTrial,
  identifyBoot,
  rejectionFor,
  type SpecReading,
  stagedEntry,
} from "./boot-plan.ts";
import type { BootRecord, CrashRecord, Entry, Rejection, Slot, TrialRecord } from "./types.ts";

function entry(fileName: string): Entry {
  const name = parseEntryName(fileName);
  if (!name) throw new Error(`${fileName} is not a liken entry name`);
  return { ...name, fileName };
}

function entries(...names: string[]): Entry[] {
  return names.map(entry);
}

const BOOT_ID = "0f4c8f3e-9a51-4a8e-b2a4-6f0d1c2e3b4a";
const OTHER_BOOT_ID = "7d1e2f30-1111-4c22-8d33-9e44f5a6b7c8";

function facts(over: Partial<BootFacts>): BootFacts {
  return {
    version: "2.0.0",
    cmdlineSlot: "b",
    loaderEntrySelected: null,
    loaderBootCountPath: null,
    entries: [],
    ...over,
  };
}

describe("identifyBoot", () => {
  it("is a trial when systemd-boot counted the entry down (LoaderBootCountPath)", () => {
    const es = entries("liken-a-1.0.0.conf", "liken-b-2.0.0+0-1.conf");
    const id = identifyBoot(
      facts({
        loaderEntrySelected: "liken-b-2.0.0",
        loaderBootCountPath: "\\loader\\entries\\liken-b-2.0.0+0-1.conf",
        entries: es,
      }),
    );
    expect(id).toEqual({ kind: "trial", slot: "b", version: "2.0.0", entry: es[1] });
  });

  it("finds the entry from LoaderBootCountPath alone when LoaderEntrySelected is not set", () => {
    const es = entries("liken-a-1.0.0.conf", "liken-b-2.0.0+0-1.conf");
    const id = identifyBoot(
      facts({ loaderBootCountPath: "/loader/entries/liken-b-2.0.0+0-1.conf", entries: es }),
    );
    expect(id).toMatchObject({ kind: "trial", slot: "b", version: "2.0.0" });
  });

  it("is the proven boot when the trial's image failed to start and systemd-boot, started again, booted the proven entry", () => {
    // LoaderBootCountPath is volatile: it still names the trial systemd-boot counted down
    // before the firmware refused its image.
    const es = entries("liken-a-1.0.0.conf", "liken-b-2.0.0+0-1.conf");
    const id = identifyBoot(
      facts({
        version: "1.0.0",
        cmdlineSlot: "a",
        loaderEntrySelected: "liken-a-1.0.0.conf",
        loaderBootCountPath: "\\loader\\entries\\liken-b-2.0.0+0-1.conf",
        entries: es,
      }),
    );
    expect(id).toEqual({ kind: "proven", slot: "a", version: "1.0.0", entry: es[0] });
  });

  it("is a trial when the booted entry still carries a counter the loader did not count down", () => {
    const es = entries("liken-a-1.0.0.conf", "liken-b-2.0.0+1-0.conf");
    const id = identifyBoot(facts({ loaderEntrySelected: "liken-b-2.0.0+1-0", entries: es }));
    expect(id).toEqual({ kind: "trial", slot: "b", version: "2.0.0", entry: es[1] });
  });

  it("is proven when the entry has no counter and the loader counted nothing", () => {
    const es = entries("liken-a-1.0.0.conf", "liken-b-2.0.0.conf");
    const id = identifyBoot(facts({ loaderEntrySelected: "liken-b-2.0.0.conf", entries: es }));
    expect(id).toEqual({ kind: "proven", slot: "b", version: "2.0.0", entry: es[1] });
  });

  it("reads LoaderEntrySelected with and without .conf, in any case", () => {
    const es = entries("liken-a-1.0.0.conf", "liken-b-2.0.0.conf");
    for (const selected of ["liken-b-2.0.0.conf", "liken-b-2.0.0", "LIKEN-B-2.0.0.CONF"]) {
      expect(identifyBoot(facts({ loaderEntrySelected: selected, entries: es })), selected).toEqual(
        { kind: "proven", slot: "b", version: "2.0.0", entry: es[1] },
      );
    }
  });

  it("is unknown, never a default, when the loader and the command line name different slots", () => {
    const es = entries("liken-a-1.0.0.conf", "liken-b-2.0.0+0-1.conf");
    const id = identifyBoot(
      facts({
        cmdlineSlot: "a",
        version: "2.0.0",
        loaderEntrySelected: "liken-b-2.0.0",
        entries: es,
      }),
    );
    expect(id.kind).toBe("unknown");
    expect(id).toMatchObject({ reason: expect.stringMatching(/slot b.*slot a/) });
  });

  it("is unknown when the loader's entry names another release than the one that booted", () => {
    const id = identifyBoot(
      facts({
        version: "2.0.0",
        loaderBootCountPath: "\\loader\\entries\\liken-b-3.0.0+0-1.conf",
        entries: entries("liken-b-3.0.0+0-1.conf"),
      }),
    );
    expect(id).toMatchObject({ kind: "unknown", reason: expect.stringContaining("3.0.0") });
  });

  it("is unknown without liken.slot= on the command line, whatever the loader says", () => {
    const id = identifyBoot(
      facts({
        cmdlineSlot: null,
        loaderEntrySelected: "liken-b-2.0.0",
        entries: entries("liken-b-2.0.0.conf"),
      }),
    );
    expect(id).toMatchObject({ kind: "unknown", reason: expect.stringContaining("liken.slot=") });
  });

  it("trusts the command line when the loader's entry is not a liken entry", () => {
    const es = entries("liken-b-2.0.0.conf");
    expect(
      identifyBoot(facts({ loaderEntrySelected: "auto-reboot-to-firmware-setup", entries: es })),
    ).toEqual({ kind: "proven", slot: "b", version: "2.0.0", entry: es[0] });
  });
});

describe("exhaustTrial", () => {
  it("counts an uncounted trial down to +0-1, writing the new name before removing the old", () => {
    expect(exhaustTrial(entry("liken-b-2.0.0+1-0.conf"))).toEqual([
      {
        op: "write",
        fileName: "liken-b-2.0.0+0-1.conf",
        slot: "b",
        version: "2.0.0",
        rank: "trial",
      },
      { op: "remove", fileName: "liken-b-2.0.0+1-0.conf" },
    ]);
  });

  it("reads +1 as +1-0", () => {
    expect(exhaustTrial(entry("liken-a-3.1.0+1.conf"))[0]).toMatchObject({
      fileName: "liken-a-3.1.0+0-1.conf",
    });
  });

  it("leaves an entry the loader already counted, and a proven one, alone", () => {
    expect(exhaustTrial(entry("liken-b-2.0.0+0-1.conf"))).toEqual([]);
    expect(exhaustTrial(entry("liken-a-1.0.0.conf"))).toEqual([]);
  });
});

describe("blessActions", () => {
  it("demotes the proven entry to previous BEFORE it writes the blessed entry, then removes the counted file", () => {
    const es = entries("liken-a-1.0.0.conf", "liken-b-2.0.0+0-1.conf");
    const actions = blessActions(es, "b", "2.0.0");
    expect(actions).toEqual([
      {
        op: "write",
        fileName: "liken-a-1.0.0.conf",
        slot: "a",
        version: "1.0.0",
        rank: "previous",
      },
      { op: "write", fileName: "liken-b-2.0.0.conf", slot: "b", version: "2.0.0", rank: "proven" },
      { op: "remove", fileName: "liken-b-2.0.0+0-1.conf" },
    ]);
  });

  it("removes the blessed slot's older release and the other slot's pending or failed trials", () => {
    const es = entries(
      "liken-a-1.0.0.conf",
      "liken-a-0.9.0+0-1.conf",
      "liken-b-0.5.0.conf",
      "liken-b-3.0.0+1-0.conf",
    );
    const actions = blessActions(es, "a", "1.0.0");
    expect(actions).toEqual([
      {
        op: "write",
        fileName: "liken-b-0.5.0.conf",
        slot: "b",
        version: "0.5.0",
        rank: "previous",
      },
      { op: "write", fileName: "liken-a-1.0.0.conf", slot: "a", version: "1.0.0", rank: "proven" },
      { op: "remove", fileName: "liken-a-0.9.0+0-1.conf" },
      { op: "remove", fileName: "liken-b-3.0.0+1-0.conf" },
    ]);
  });

  it("blesses a downgrade in the same way (B→A, then A→B)", () => {
    const first = applyActions(
      ["liken-b-2.0.0.conf", "liken-a-1.5.0+0-1.conf"],
      blessActions(entries("liken-b-2.0.0.conf", "liken-a-1.5.0+0-1.conf"), "a", "1.5.0"),
    );
    expect([...first.keys()].sort()).toEqual(["liken-a-1.5.0.conf", "liken-b-2.0.0.conf"]);
    expect(first.get("liken-a-1.5.0.conf")).toBe("proven");
    expect(first.get("liken-b-2.0.0.conf")).toBe("previous");
    const second = applyActions(
      ["liken-a-1.5.0.conf", "liken-b-2.1.0+0-1.conf"],
      blessActions(entries("liken-a-1.5.0.conf", "liken-b-2.1.0+0-1.conf"), "b", "2.1.0"),
    );
    expect(Object.fromEntries(second)).toEqual({
      "liken-a-1.5.0.conf": "previous",
      "liken-b-2.1.0.conf": "proven",
    });
  });
});

describe("exhaustedTrials", () => {
  it("lists the other slot's entries with no tries left, never the running slot's or a pending one", () => {
    const es = entries(
      "liken-a-1.0.0.conf",
      "liken-a-0.9.0+0-2.conf",
      "liken-b-2.0.0+0-1.conf",
      "liken-b-2.1.0+1-0.conf",
    );
    expect(exhaustedTrials(es, "a").map((e) => e.fileName)).toEqual(["liken-b-2.0.0+0-1.conf"]);
    expect(exhaustedTrials(es, "b").map((e) => e.fileName)).toEqual(["liken-a-0.9.0+0-2.conf"]);
  });
});

describe("rejectionFor", () => {
  const NOW = "2026-12-01T05:00:00Z";
  const rejected = entry("liken-b-2.0.0+0-1.conf");
  const trial = (over: Partial<TrialRecord>): BootRecord => ({
    trial: {
      version: "2.0.0",
      slot: "b",
      bootId: BOOT_ID,
      startedAt: "2026-12-01T04:50:00.250Z",
      outcome: "Started",
      message: "",
      ...over,
    },
    rejection: null,
  });
  const crash = (over: Partial<CrashRecord>): CrashRecord => ({
    id: "a1b2c3d4e5f60718",
    time: "2026-12-01T04:50:31Z",
    bootId: BOOT_ID,
    release: "2.0.0",
    slot: "b",
    kind: "Panic",
    lines: [
      "[   31.101234] sysrq: Trigger a crash",
      "[   31.101500] Kernel panic - not syncing: sysrq triggered crash",
      "[   31.101700] CPU: 0 PID: 412 Comm: sh Not tainted 6.1.0-27-amd64 #1  Debian 6.1.115-1",
    ],
    ...over,
  });

  it("is HealthCheckFailed with the trial's own message when the trial recorded a failed check", () => {
    const r = rejectionFor(
      rejected,
      trial({ outcome: "HealthCheckFailed", message: "kubelet did not answer on :10248 in 120 s" }),
      [crash({})],
      NOW,
    );
    expect(r).toEqual<Rejection>({
      version: "2.0.0",
      slot: "b",
      reason: "HealthCheckFailed",
      attempts: 1,
      time: NOW,
      message: "kubelet did not answer on :10248 in 120 s",
    });
  });

  it("is Crashed when a crash record carries the trial's boot id, with the panic line as the message", () => {
    const r = rejectionFor(rejected, trial({}), [crash({ release: null, slot: null })], NOW);
    expect(r).toMatchObject({
      reason: "Crashed",
      attempts: 1,
      message: "the kernel crashed: Kernel panic - not syncing: sysrq triggered crash",
    });
  });

  it("is Crashed from a crash of the trial's release and slot when no trial record names it", () => {
    const r = rejectionFor(
      rejected,
      { trial: null, rejection: null },
      [crash({ bootId: "" })],
      NOW,
    );
    expect(r.reason).toBe("Crashed");
  });

  it("is BootImageRefused when systemd-boot counted the trial down in this same power-on", () => {
    const r = rejectionFor(
      rejected,
      { trial: null, rejection: null },
      [],
      NOW,
      null,
      "\\loader\\entries\\liken-b-2.0.0+0-1.conf",
    );
    expect(r).toMatchObject({ reason: "BootImageRefused", attempts: 1 });
    expect(r.message).toMatch(
      /^the trial's image never started: the firmware or systemd-boot refused it/,
    );
    // A counted-down entry of another release is not this trial's.
    const other = rejectionFor(
      rejected,
      { trial: null, rejection: null },
      [],
      NOW,
      null,
      "\\loader\\entries\\liken-b-3.0.0+0-1.conf",
    );
    expect(other.reason).toBe("NoBootComplete");
  });

  it("is NoBootComplete with the initramfs's reason when the trial never reached its root", () => {
    const failure = {
      version: "2.0.0",
      slot: "b" as const,
      message:
        "the root of slot b does not mount (verity or erofs): mount: mounting /dev/mapper/liken-root on /root failed: Input/output error",
    };
    const r = rejectionFor(rejected, { trial: null, rejection: null }, [], NOW, failure);
    expect(r).toMatchObject({
      reason: "NoBootComplete",
      message:
        "the trial's initramfs did not reach the root: the root of slot b does not mount (verity or erofs): mount: mounting /dev/mapper/liken-root on /root failed: Input/output error",
    });
    // Another release's failure (an older trial) says nothing about this one.
    const older = rejectionFor(rejected, { trial: null, rejection: null }, [], NOW, {
      ...failure,
      version: "1.9.0",
    });
    expect(older.message).toMatch(/^the trial boot did not finish its health checks/);
  });

  it("does not blame the trial for a crash of another release, another slot, or before it started", () => {
    const others = [
      crash({ bootId: OTHER_BOOT_ID, release: "1.0.0", slot: "a" }),
      crash({ bootId: OTHER_BOOT_ID, release: "2.0.0", slot: "a" }),
      crash({ bootId: OTHER_BOOT_ID, time: "2026-12-01T04:40:00Z" }),
    ];
    const r = rejectionFor(rejected, trial({}), others, NOW);
    expect(r.reason).toBe("NoBootComplete");
    expect(r.message).toMatch(/watchdog|power/);
  });

  it("is NoBootComplete when the trial left nothing: no record, no crash", () => {
    expect(rejectionFor(rejected, { trial: null, rejection: null }, [], NOW)).toMatchObject({
      version: "2.0.0",
      slot: "b",
      reason: "NoBootComplete",
      attempts: 1,
      time: NOW,
    });
  });

  it("ignores a trial record of another release", () => {
    const r = rejectionFor(
      rejected,
      trial({ version: "1.9.0", outcome: "HealthCheckFailed", message: "x" }),
      [],
      NOW,
    );
    expect(r.reason).toBe("NoBootComplete");
  });

  it("counts attempts from the entry's tries done", () => {
    expect(
      rejectionFor(entry("liken-b-2.0.0+0-3.conf"), { trial: null, rejection: null }, [], NOW)
        .attempts,
    ).toBe(3);
  });
});

describe("decideStaging", () => {
  const spec = (version: string, source: string | null = `releases/${version}`): SpecReading => ({
    kind: "spec",
    spec: { version, source, rebootNow: false, storage: [] },
  });
  const running = { slot: "a" as Slot, version: "1.0.0" };
  const rejection: Rejection = {
    version: "2.0.0",
    slot: "b",
    reason: "Crashed",
    attempts: 1,
    time: "2026-12-01T05:00:00Z",
    message: "the kernel crashed",
  };

  it("refuses a spec whose storage role is smaller than its partition, giving both sizes", () => {
    const shrunk: SpecReading = {
      kind: "spec",
      spec: {
        version: "2.0.0",
        source: "releases/2.0.0",
        rebootNow: false,
        storage: [
          { role: "data", size: 512 * 1024 * 1024 },
          { role: "scratch", size: "rest" },
        ],
      },
    };
    const storage = [
      { role: "data", disk: "vdb", size: 1024 * 1024 * 1024 },
      { role: "scratch", disk: "vda", size: 3 * 1024 * 1024 * 1024 },
    ];
    expect(
      decideStaging({ spec: shrunk, running, entries: [], rejection: null, storage }).staging,
    ).toEqual({
      kind: "refused",
      reason: "StorageShrink",
      message:
        "storage role data is 512MiB in the spec and 1GiB on disk vdb (partition liken-data): set the role's size in the spec to 1GiB or more, or reinstall the machine with the new layout",
    });
    const grown = storage.map((p) => (p.role === "data" ? { ...p, size: 256 * 1024 * 1024 } : p));
    expect(
      decideStaging({ spec: shrunk, running, entries: [], rejection: null, storage: grown }).staging
        .kind,
    ).toBe("stage");
  });

  it("does nothing without a spec", () => {
    expect(
      decideStaging({ spec: { kind: "none" }, running, entries: [], rejection: null }),
    ).toEqual({ staging: { kind: "none" }, actions: [] });
  });

  it("refuses an invalid spec with its message", () => {
    expect(
      decideStaging({
        spec: { kind: "invalid", message: "/state/spec.toml does not parse" },
        running,
        entries: [],
        rejection: null,
      }).staging,
    ).toEqual({
      kind: "refused",
      reason: "SpecInvalid",
      message: "/state/spec.toml does not parse",
    });
  });

  it("is none when the spec names the running release, and unstages a pending entry", () => {
    const d = decideStaging({
      spec: spec("1.0.0"),
      running,
      entries: entries("liken-a-1.0.0.conf", "liken-b-2.0.0+1-0.conf"),
      rejection: null,
    });
    expect(d).toEqual({
      staging: { kind: "none" },
      actions: [{ op: "remove", fileName: "liken-b-2.0.0+1-0.conf" }],
    });
  });

  it("refuses the rejected release with VersionRejected", () => {
    const d = decideStaging({
      spec: spec("2.0.0"),
      running,
      entries: entries("liken-a-1.0.0.conf", "liken-b-2.0.0+0-1.conf"),
      rejection,
    });
    expect(d.staging).toMatchObject({
      kind: "refused",
      reason: "VersionRejected",
      message: expect.stringContaining("2.0.0"),
    });
    // An exhausted entry is not pending: nothing to unstage.
    expect(d.actions).toEqual([]);
  });

  it("is pending when the spec's release already waits in the other slot, and unstages any other", () => {
    const d = decideStaging({
      spec: spec("2.1.0"),
      running,
      entries: entries("liken-a-1.0.0.conf", "liken-b-2.1.0+1-0.conf"),
      rejection: null,
    });
    expect(d).toEqual({ staging: { kind: "pending", slot: "b", version: "2.1.0" }, actions: [] });
  });

  it("stages into the other slot, never the running one, and lists that slot's entries to remove first", () => {
    const d = decideStaging({
      spec: spec("2.0.0"),
      running: { slot: "b", version: "1.0.0" },
      entries: entries("liken-b-1.0.0.conf", "liken-a-0.9.0.conf", "liken-a-0.9.1+0-1.conf"),
      rejection: null,
    });
    expect(d).toEqual({
      staging: {
        kind: "stage",
        slot: "a",
        version: "2.0.0",
        source: "releases/2.0.0",
        remove: ["liken-a-0.9.0.conf", "liken-a-0.9.1+0-1.conf"],
      },
      actions: [],
    });
  });

  it("gives the release the other slot still holds one try again when the spec names no source", () => {
    // 2.0.0 was proven in b, then 1.0.0 took over in a; the spec goes back to 2.0.0.
    const es = entries("liken-a-1.0.0.conf", "liken-b-2.0.0.conf");
    expect(
      decideStaging({ spec: spec("2.0.0", null), running, entries: es, rejection: null }),
    ).toEqual({
      staging: { kind: "pending", slot: "b", version: "2.0.0" },
      // The counted entry first: a reset between the two leaves an entry for the slot.
      actions: [
        {
          op: "write",
          fileName: "liken-b-2.0.0+1-0.conf",
          slot: "b",
          version: "2.0.0",
          rank: "trial",
        },
        { op: "remove", fileName: "liken-b-2.0.0.conf" },
      ],
    });
    // With a source, the slot is written again from it and verified.
    expect(
      decideStaging({ spec: spec("2.0.0"), running, entries: es, rejection: null }).staging,
    ).toMatchObject({ kind: "stage", slot: "b", remove: ["liken-b-2.0.0.conf"] });
  });

  it("stages when the spec names no source and the release is nowhere on the machine (stage refuses it)", () => {
    expect(
      decideStaging({
        spec: spec("2.0.0", null),
        running,
        entries: entries("liken-a-1.0.0.conf", "liken-b-0.9.0.conf"),
        rejection: null,
      }).staging,
    ).toMatchObject({ kind: "stage", slot: "b", version: "2.0.0", source: null });
  });

  it("stages a different release after a rejection", () => {
    const d = decideStaging({
      spec: spec("2.0.1"),
      running,
      entries: entries("liken-a-1.0.0.conf", "liken-b-2.0.0+0-1.conf"),
      rejection,
    });
    expect(d.staging).toMatchObject({
      kind: "stage",
      slot: "b",
      version: "2.0.1",
      remove: ["liken-b-2.0.0+0-1.conf"],
    });
  });
});

describe("stagedEntry", () => {
  it("gives a staged release one try with a fixed-width counter", () => {
    const action = stagedEntry("b", "2.0.0");
    expect(action).toEqual({
      op: "write",
      fileName: "liken-b-2.0.0+1-0.conf",
      slot: "b",
      version: "2.0.0",
      rank: "trial",
    });
    // systemd-boot renames +1-0 to +0-1: the same length, so FAT rewrites the name in place.
    const counted = "liken-b-2.0.0+0-1.conf";
    expect(action.fileName).toHaveLength(counted.length);
    expect(parseEntryName(action.fileName)).toEqual({
      slot: "b",
      version: "2.0.0",
      triesLeft: 1,
      triesDone: 0,
    });
  });
});

// loader/entries as a map from file name to rank ("" for a file whose content nobody wrote here).
function applyActions(initial: readonly string[], actions: readonly EntryAction[]) {
  const files = new Map<string, string>(initial.map((n) => [n, ""]));
  for (const a of actions) {
    if (a.op === "write") files.set(a.fileName, a.rank);
    else files.delete(a.fileName);
  }
  return files;
}

function slotVersionCounts(files: Iterable<string>): Map<string, number> {
  const counts = new Map<string, number>();
  for (const f of files) {
    const e = entry(f);
    const key = `${e.slot} ${e.version}`;
    counts.set(key, (counts.get(key) ?? 0) + 1);
  }
  return counts;
}

describe("properties", () => {
  const slot = fc.constantFrom<Slot>("a", "b");
  const version = fc.tuple(fc.nat(3), fc.nat(3), fc.nat(3)).map(([x, y, z]) => `${x}.${y}.${z}`);
  const counter = fc.option(
    fc.oneof(
      fc.constant({ left: 1, done: 0 }),
      fc.constant({ left: 0, done: 1 }),
      fc.record({
        left: fc.nat(2),
        done: fc.nat(3),
      }),
    ),
    { nil: null },
  );
  const file = fc
    .tuple(slot, version, counter)
    .map(([s, v, c]) => `liken-${s}-${v}${c ? `+${c.left}-${c.done}` : ""}.conf`);
  // loader/entries as the agent leaves it: at most one file per slot and release.
  const entryDir = fc
    .uniqueArray(file, { selector: (f) => f.replace(/(\+[\d-]+)?\.conf$/, ""), maxLength: 6 })
    .map((names) => names.map(entry));

  it("staging never writes the running slot, and never removes its entries", () => {
    fc.assert(
      fc.property(
        entryDir,
        slot,
        version,
        fc.option(version, { nil: null }),
        fc.option(version, { nil: null }),
        (es, runningSlot, runningVersion, target, rejected) => {
          const { staging, actions } = decideStaging({
            spec:
              target === null
                ? { kind: "none" }
                : {
                    kind: "spec",
                    spec: { version: target, source: null, rebootNow: false, storage: [] },
                  },
            running: { slot: runningSlot, version: runningVersion },
            entries: es,
            rejection:
              rejected === null
                ? null
                : {
                    version: rejected,
                    slot: runningSlot === "a" ? "b" : "a",
                    reason: "NoBootComplete",
                    attempts: 1,
                    time: "2026-12-01T05:00:00Z",
                    message: "",
                  },
          });
          for (const a of actions) expect(entry(a.fileName).slot).not.toBe(runningSlot);
          const applied = applyActions(
            es.map((e) => e.fileName),
            actions,
          );
          for (const [key, n] of slotVersionCounts(applied.keys())) expect(n, key).toBe(1);
          if (staging.kind === "stage" || staging.kind === "pending") {
            expect(staging.slot).not.toBe(runningSlot);
            expect(staging.version).not.toBe(runningVersion);
            expect(staging.version).not.toBe(rejected);
          }
          if (staging.kind === "stage") {
            for (const f of staging.remove) expect(entry(f).slot).not.toBe(runningSlot);
            expect(stagedEntry(staging.slot, staging.version)).toMatchObject({
              slot: staging.slot,
            });
            // After the removals and the new entry, the other slot holds that one entry.
            const after = applyActions(
              es.map((e) => e.fileName),
              [
                ...staging.remove.map((f): EntryAction => ({ op: "remove", fileName: f })),
                stagedEntry(staging.slot, staging.version),
              ],
            );
            expect([...after.keys()].filter((f) => entry(f).slot === staging.slot)).toEqual([
              `liken-${staging.slot}-${staging.version}+1-0.conf`,
            ]);
          }
        },
      ),
      { numRuns: 500 },
    );
  });

  it("blessing and counting a trial keep exactly one entry per slot and release", () => {
    fc.assert(
      fc.property(entryDir, slot, version, (es, s, v) => {
        const before = es.map((e) => e.fileName);
        const blessed = applyActions(before, blessActions(es, s, v));
        for (const [key, n] of slotVersionCounts(blessed.keys())) expect(n, key).toBe(1);
        expect(blessed.get(`liken-${s}-${v}.conf`)).toBe("proven");
        // The blessed slot holds nothing else; no trial is left anywhere.
        for (const f of blessed.keys()) {
          const e = entry(f);
          if (e.slot === s) expect(f).toBe(`liken-${s}-${v}.conf`);
          expect(e.triesLeft).toBeNull();
        }
        // At most one proven entry: the one just blessed.
        expect([...blessed.values()].filter((r) => r === "proven")).toHaveLength(1);

        for (const e of es) {
          const counted = applyActions(before, exhaustTrial(e));
          for (const [key, n] of slotVersionCounts(counted.keys())) expect(n, key).toBe(1);
          const mine = [...counted.keys()].filter((f) => {
            const c = entry(f);
            return c.slot === e.slot && c.version === e.version;
          });
          expect(mine).toHaveLength(1);
          const left = entry(mine[0] as string).triesLeft;
          expect(left === null || left === 0).toBe(true);
        }
      }),
      { numRuns: 500 },
    );
  });
});
