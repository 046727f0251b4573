// The two disks of a mirror kept in step: which disk is the truth, and the writes that make
// the other equal, in an order where the disk written boots at every instant.
import { describe, expect, it } from "vitest";
import { type DiskView, type MirrorObservation, planMirror } from "./mirror-plan.ts";

const ONE = {
  a: "1aaaaaaa-0000-4000-8000-000000000001",
  b: "1bbbbbbb-0000-4000-8000-000000000001",
};
const TWO = {
  a: "2aaaaaaa-0000-4000-8000-000000000002",
  b: "2bbbbbbb-0000-4000-8000-000000000002",
};

function entry(slot: "a" | "b", version: string, uuids: typeof ONE, rank = "proven"): string {
  return `title liken ${version}\nversion ${version}\nsort-key liken-${rank}\noptions root=PARTUUID=${uuids[slot]} ro liken.slot=${slot}\n`;
}

const RELEASE_1 = 'version = "1.0.0"\n';
const RELEASE_2 = 'version = "2.0.0"\n';
const STATUS = "status/status.json";
const RECORD = "boot/record.json";

/** A machine that runs 1.0.0 in slot a, installed on both disks alike. */
function disk(uuids: typeof ONE, over: Partial<DiskView> = {}): DiskView {
  return {
    generation: 4,
    entries: { "liken-a-1.0.0.conf": entry("a", "1.0.0", uuids) },
    releases: { a: RELEASE_1, b: null },
    documents: { [STATUS]: '{"version":"1.0.0"}', [RECORD]: null },
    partUuids: uuids,
    ...over,
  };
}

function observe(booted: DiskView, peer: DiskView | null): MirrorObservation {
  return { booted, peer, running: "a", bootedMember: 1, peerMember: 2 };
}

describe("planMirror", () => {
  it("writes nothing when both disks hold the same, each entry naming its own disk's slots", () => {
    expect(planMirror(observe(disk(ONE), disk(TWO)))).toEqual({ kind: "inStep" });
  });

  it("bumps the booted disk's generation alone when the peer is missing", () => {
    expect(planMirror(observe(disk(ONE), null))).toEqual({ kind: "alone", generation: 5 });
  });

  it("carries the booted disk's newer documents to the peer and bumps both generations", () => {
    const booted = disk(ONE, { generation: 5, documents: { [STATUS]: "new", [RECORD]: "rec" } });
    expect(planMirror(observe(booted, disk(TWO)))).toEqual({
      kind: "toPeer",
      generation: 6,
      actions: [
        { op: "writeDocument", path: STATUS, text: "new" },
        { op: "writeDocument", path: RECORD, text: "rec" },
        { op: "setGeneration", generation: 6 },
      ],
    });
  });

  it("carries systemd-boot's counter rename, made on the booted ESP only, to the peer", () => {
    const staged = (uuids: typeof ONE, name: string) =>
      disk(uuids, {
        entries: {
          "liken-a-1.0.0.conf": entry("a", "1.0.0", uuids),
          [name]: entry("b", "2.0.0", uuids, "trial"),
        },
        releases: { a: RELEASE_1, b: RELEASE_2 },
      });
    const plan = planMirror(
      observe(staged(ONE, "liken-b-2.0.0+0-1.conf"), staged(TWO, "liken-b-2.0.0+1-0.conf")),
    );
    expect(plan).toEqual({
      kind: "toPeer",
      generation: 5,
      actions: [
        {
          op: "writeEntry",
          fileName: "liken-b-2.0.0+0-1.conf",
          text: entry("b", "2.0.0", TWO, "trial"),
        },
        { op: "removeEntry", fileName: "liken-b-2.0.0+1-0.conf" },
        { op: "setGeneration", generation: 5 },
      ],
    });
  });

  it("copies a slot whose release differs: its entries and release.toml go before its partition is written", () => {
    const booted = disk(ONE, {
      generation: 5,
      entries: {
        "liken-a-1.0.0.conf": entry("a", "1.0.0", ONE),
        "liken-b-2.0.0+1-0.conf": entry("b", "2.0.0", ONE, "trial"),
      },
      releases: { a: RELEASE_1, b: RELEASE_2 },
    });
    const peer = disk(TWO, {
      entries: {
        "liken-a-1.0.0.conf": entry("a", "1.0.0", TWO),
        "liken-b-0.9.0.conf": entry("b", "0.9.0", TWO, "previous"),
      },
      releases: { a: RELEASE_1, b: 'version = "0.9.0"\n' },
    });
    expect(planMirror(observe(booted, peer))).toEqual({
      kind: "toPeer",
      generation: 6,
      actions: [
        { op: "removeEntry", fileName: "liken-b-0.9.0.conf" },
        { op: "forgetSlot", slot: "b" },
        { op: "copySlot", slot: "b" },
        {
          op: "writeEntry",
          fileName: "liken-b-2.0.0+1-0.conf",
          text: entry("b", "2.0.0", TWO, "trial"),
        },
        { op: "setGeneration", generation: 6 },
      ],
    });
  });

  it("forgets the peer's slot when the booted disk's holds no release", () => {
    const peer = disk(TWO, { releases: { a: RELEASE_1, b: RELEASE_2 } });
    expect(planMirror(observe(disk(ONE), peer))).toMatchObject({
      kind: "toPeer",
      actions: [
        { op: "forgetSlot", slot: "b" },
        { op: "setGeneration", generation: 5 },
      ],
    });
  });

  it("brings the booted disk up to the peer that ran while it was gone, then reboots", () => {
    // Member 2 staged and blessed 2.0.0 in slot b alone; member 1 comes back and boots slot a.
    const peer = disk(TWO, {
      generation: 9,
      entries: {
        "liken-b-2.0.0.conf": entry("b", "2.0.0", TWO),
        "liken-a-1.0.0.conf": entry("a", "1.0.0", TWO, "previous"),
      },
      releases: { a: RELEASE_1, b: RELEASE_2 },
      documents: { [STATUS]: '{"version":"2.0.0"}', [RECORD]: "blessed" },
    });
    expect(planMirror(observe(disk(ONE), peer))).toEqual({
      kind: "toBooted",
      complete: true,
      line: "member 1 was behind member 2 (generation 4 < 9): brought up to date, rebooting",
      actions: [
        { op: "forgetSlot", slot: "b" },
        { op: "copySlot", slot: "b" },
        { op: "writeEntry", fileName: "liken-b-2.0.0.conf", text: entry("b", "2.0.0", ONE) },
        {
          op: "writeEntry",
          fileName: "liken-a-1.0.0.conf",
          text: entry("a", "1.0.0", ONE, "previous"),
        },
        { op: "writeDocument", path: STATUS, text: '{"version":"2.0.0"}' },
        { op: "writeDocument", path: RECORD, text: "blessed" },
        { op: "setGeneration", generation: 9 },
      ],
    });
  });

  it("never writes the slot this boot runs from: the other first, its entries gone last, the rest at the next boot", () => {
    // Member 2 went on alone to 3.0.0 in slot a (after 2.0.0 in b); member 1 runs 1.0.0 in a.
    const peer = disk(TWO, {
      generation: 12,
      entries: {
        "liken-a-3.0.0.conf": entry("a", "3.0.0", TWO),
        "liken-b-2.0.0.conf": entry("b", "2.0.0", TWO, "previous"),
      },
      releases: { a: 'version = "3.0.0"\n', b: RELEASE_2 },
    });
    const plan = planMirror(observe(disk(ONE), peer));
    expect(plan).toEqual({
      kind: "toBooted",
      complete: false,
      line: "member 1 was behind member 2 (generation 4 < 12): its slot b brought up to date, rebooting into it to bring up slot a",
      actions: [
        { op: "forgetSlot", slot: "b" },
        { op: "copySlot", slot: "b" },
        {
          op: "writeEntry",
          fileName: "liken-b-2.0.0.conf",
          text: entry("b", "2.0.0", ONE, "previous"),
        },
        { op: "removeEntry", fileName: "liken-a-1.0.0.conf" },
      ],
    });
  });

  it("keeps the booted disk as the truth when the newer side lives only in the slot it runs from", () => {
    const peer = disk(TWO, {
      generation: 12,
      entries: { "liken-a-3.0.0.conf": entry("a", "3.0.0", TWO) },
      releases: { a: 'version = "3.0.0"\n', b: null },
    });
    const plan = planMirror(observe(disk(ONE), peer));
    expect(plan).toMatchObject({ kind: "toPeer", generation: 13 });
    expect(plan.kind === "toPeer" && plan.actions.map((a) => a.op)).toEqual([
      "removeEntry",
      "forgetSlot",
      "copySlot",
      "writeEntry",
      "setGeneration",
    ]);
  });
});
