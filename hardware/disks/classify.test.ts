import { describe, expect, it } from "vitest";
import { encodeClaim, judgeClaim } from "../../formats/claim.ts";
import { classifyDisk } from "./classify.ts";
import type { ContentProbe, DiskFacts } from "./types.ts";

const GIB = 1024 ** 3;
const facts: DiskFacts = {
  path: "/dev/sdb",
  name: "sdb",
  kind: "block",
  deviceType: "disk",
  size: 64 * GIB,
  logicalSectorSize: 512,
  physicalSectorSize: 4096,
  rotational: false,
  readOnly: false,
  removable: false,
  transport: "sata",
  serial: "S1",
  holders: [],
  mounts: [],
  swap: false,
  partitions: [],
  bootMedium: false,
  missingModules: [],
};
const empty: ContentProbe = {
  signatures: [],
  mbrPartitions: 0,
  headZero: true,
  tailZero: true,
  exclusive: true,
  claim: { state: "none" },
  failed: [],
};
const sig = (type: string, offset: number, usage = "filesystem") => ({
  device: "/dev/sdb",
  type,
  usage,
  offset,
  offsetText: `0x${offset.toString(16)}`,
});
const claimed = (complete: boolean) => {
  const c = encodeClaim({
    cluster: "c",
    machine: "m",
    installId: "0b7e8a52-34c1-4b7f-9a55-3f1d2e4c5a6b",
    release: "1.0.0",
    use: "system",
    complete,
    createdAt: 0,
    generation: 1,
  });
  return judgeClaim(c, c);
};

const verdict = (f: Partial<DiskFacts>, p: Partial<ContentProbe>) => {
  const d = classifyDisk({ ...facts, ...f }, { ...empty, ...p });
  return [d.verdict, d.reasons];
};

describe("classifyDisk", () => {
  it("calls a disk blank only when every probe ran and found nothing", () => {
    expect(verdict({}, {})).toEqual(["blank", []]);
  });

  it.each([
    ["a filesystem", {}, { signatures: [sig("xfs", 0)] }, ["signature:xfs@0x0"]],
    [
      "a backup GPT",
      {},
      { signatures: [sig("gpt", 0x1000, "partition-table")] },
      ["partition-table:gpt"],
    ],
    ["data in the first MiB", {}, { headZero: false }, ["nonzero-data:head"]],
    ["data in the last MiB", {}, { tailZero: false }, ["nonzero-data:tail"]],
    ["a mounted partition", { mounts: ["/mnt"] }, {}, ["mounted:/mnt"]],
    ["swap", { swap: true }, {}, ["swap"]],
    ["a holder", { holders: ["dm-0"] }, {}, ["holder:dm-0"]],
    ["a refused exclusive open", {}, { exclusive: false }, ["busy"]],
    [
      "kernel partitions",
      { partitions: [{ path: "/dev/sdb1", start: 1048576 }] },
      {},
      ["partitions"],
    ],
    ["a failed wipefs", {}, { failed: ["wipefs"] as const }, ["probe-failed:wipefs"]],
    [
      "an unreadable disk",
      {},
      { failed: ["read"] as const, headZero: undefined, tailZero: undefined },
      ["probe-failed:read"],
    ],
    [
      "two claims that disagree",
      {},
      { claim: { state: "conflict" } as const },
      ["liken-claim:conflict"],
    ],
  ])("calls a disk with %s foreign", (_, f, p, reasons) => {
    expect(verdict(f, p as Partial<ContentProbe>)).toEqual(["foreign", reasons]);
  });

  it("calls labels that imitate liken's without a claim foreign", () => {
    const gpt = {
      diskGuid: "X",
      sectorSize: 512,
      entries: [
        { number: 1, start: 1 << 20, size: 1 << 20, typeGuid: "X", uuid: "Y", name: "liken-esp" },
      ],
    };
    expect(verdict({}, { gpt, signatures: [sig("gpt", 0x200, "partition-table")] })).toEqual([
      "foreign",
      ["partition-table:gpt", "partitions", "liken-labels-without-claim"],
    ]);
  });

  it.each([
    ["read-only", { readOnly: true }],
    ["removable", { removable: true }],
    ["removable", { transport: "usb" }],
    ["too-small", { size: 256 * 1024 * 1024 }],
    ["boot-medium", { bootMedium: true }],
    ["partition", { deviceType: "part" }],
    ["virtual-device:zram", { deviceType: "zram" }],
  ])("calls a disk ineligible for %s", (reason, f) => {
    expect(verdict(f, {})).toEqual(["ineligible", [reason]]);
  });

  it("keeps every reason when a disk is both ineligible and full of data", () => {
    expect(verdict({ readOnly: true }, { signatures: [sig("ext4", 0x438)] })).toEqual([
      "ineligible",
      ["read-only", "signature:ext4@0x438"],
    ]);
  });

  it("calls a disk with a valid claim liken, partial or complete, whatever else it holds", () => {
    const d = classifyDisk(facts, {
      ...empty,
      claim: claimed(false),
      signatures: [sig("gpt", 0x200, "partition-table")],
      headZero: false,
    });
    expect(d.verdict).toBe("liken");
    expect(d.reasons).toEqual(["liken-claim:partial", "partition-table:gpt", "nonzero-data:head"]);
    expect(d.claim).toEqual({
      cluster: "c",
      machine: "m",
      installId: "0b7e8a52-34c1-4b7f-9a55-3f1d2e4c5a6b",
      release: "1.0.0",
      use: "system",
      complete: false,
      createdAt: "1970-01-01T00:00:00.000Z",
    });
    expect(classifyDisk(facts, { ...empty, claim: claimed(true) }).reasons).toEqual([
      "liken-claim:complete",
    ]);
  });

  it("does not trust a claim when a probe failed", () => {
    expect(verdict({}, { claim: claimed(true), failed: ["wipefs"] })).toEqual([
      "foreign",
      ["liken-claim:complete", "probe-failed:wipefs"],
    ]);
  });

  it("calls a disk whose driver the release lacks unsupported", () => {
    expect(verdict({ missingModules: ["nvme"] }, {})).toEqual([
      "unsupported",
      ["missing-driver:nvme"],
    ]);
  });
});
