import { describe, expect, it } from "vitest";
import { encodeClaim, judgeClaim } from "../../formats/claim.ts";
import { PARTITION_TYPES } from "../../formats/gpt-types.ts";
import { partitionUuidFor, tableIdFor } from "../../formats/install-ids.ts";
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
  found: [],
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
const INSTALL_ID = "0b7e8a52-34c1-4b7f-9a55-3f1d2e4c5a6b";
const claimed = (complete: boolean) => {
  const c = encodeClaim({
    cluster: "c",
    machine: "m",
    installId: INSTALL_ID,
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
    ["data between the ends", {}, { middleZero: false }, ["nonzero-data:middle"]],
    [
      "a filesystem at a partition start no table names",
      {},
      { found: [{ type: "ext4", usage: "filesystem", offset: 0x100000 }] },
      ["signature:ext4@0x100000"],
    ],
    [
      "a table nested at a partition start",
      {},
      { found: [{ type: "dos", usage: "partition-table", offset: 0x7e00 }] },
      ["partition-table:dos@0x7e00"],
    ],
    [
      "only a backup GPT that names partitions",
      {},
      {
        backupGpt: {
          diskGuid: "X",
          sectorSize: 512,
          entries: [
            { number: 1, start: 1 << 20, size: 1 << 20, typeGuid: "X", uuid: "Y", name: "" },
          ],
        },
      },
      ["partitions"],
    ],
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

  it("calls two paths to one disk (the same WWN) both ineligible", () => {
    const a = { ...facts, path: "/dev/sdb", wwn: "0x5000c500a1b2c3d4" };
    const b = { ...facts, path: "/dev/sdc", wwn: "0x5000C500A1B2C3D4" };
    const c = { ...facts, path: "/dev/sdd", wwn: "0x5000c500ffffffff" };
    const all = [a, b, c];
    expect(all.map((d) => classifyDisk(d, empty, all)).map((d) => [d.verdict, d.reasons])).toEqual([
      ["ineligible", ["multipath:/dev/sdc"]],
      ["ineligible", ["multipath:/dev/sdb"]],
      ["blank", []],
    ]);
  });

  it("takes no twin for a disk whose WWN is empty or all zeros", () => {
    const all = ["0x0000000000000000", "0x0000000000000000", "", "naa.00000000"].map((wwn, i) => ({
      ...facts,
      path: `/dev/sd${"bcde"[i]}`,
      wwn,
    }));
    expect(all.map((d) => classifyDisk(d, empty, all).verdict)).toEqual([
      "blank",
      "blank",
      "blank",
      "blank",
    ]);
  });

  it("reads the stick itself as the boot medium in one reason, whatever its image holds", () => {
    const signatures = [sig("gpt", 0x200, "partition-table"), sig("vfat", 0x100052)];
    expect(verdict({ bootMedium: true, transport: "usb" }, { signatures })).toEqual([
      "ineligible",
      ["boot-medium"],
    ]);
  });

  it("keeps every reason when a disk is both ineligible and full of data", () => {
    expect(verdict({ readOnly: true }, { signatures: [sig("ext4", 0x438)] })).toEqual([
      "ineligible",
      ["read-only", "signature:ext4@0x438"],
    ]);
  });

  it("calls a disk with a valid claim liken while it holds only what liken wrote", () => {
    const d = classifyDisk(facts, {
      ...empty,
      claim: claimed(false),
      gpt: ourGpt(),
      signatures: [sig("gpt", 0x200, "partition-table"), sig("vfat", 0x100052)],
      found: [
        { type: "vfat", usage: "filesystem", offset: 0x100000 },
        { type: "erofs", usage: "filesystem", offset: 0x200000 },
        { type: "xfs", usage: "filesystem", offset: 0x700000 },
      ],
      headZero: false,
    });
    expect(d.verdict).toBe("liken");
    expect(d.reasons).toEqual([
      "liken-claim:partial",
      "partition-table:gpt",
      "signature:vfat@0x100052",
      "signature:erofs@0x200000",
      "signature:xfs@0x700000",
      "partitions",
      "nonzero-data:head",
    ]);
    expect(d.claim).toEqual({
      cluster: "c",
      machine: "m",
      installId: INSTALL_ID,
      release: "1.0.0",
      use: "system",
      complete: false,
      createdAt: "1970-01-01T00:00:00Z",
    });
    // No table yet (an install stopped after its claim), or none any more (an erase stopped
    // after the table): old data in the middle is liken's own.
    expect(classifyDisk(facts, { ...empty, claim: claimed(true), middleZero: false }).verdict).toBe(
      "liken",
    );
    expect(classifyDisk(facts, { ...empty, claim: claimed(true) }).reasons).toEqual([
      "liken-claim:complete",
    ]);
    // The backup GPT speaks when the primary is gone (an erase stopped inside the table), or
    // torn (implausible: the claim still holds, and the reason shows it).
    expect(
      classifyDisk(facts, { ...empty, claim: claimed(true), backupGpt: ourGpt() }).verdict,
    ).toBe("liken");
    const torn = classifyDisk(facts, {
      ...empty,
      claim: claimed(true),
      backupGpt: ourGpt(),
      implausible: ["gpt:entry-array-crc"],
    });
    expect([torn.verdict, torn.reasons]).toEqual([
      "liken",
      ["liken-claim:complete", "partition-table:implausible", "partitions"],
    ]);
  });

  it.each([
    ["a new table", { gpt: { ...ourGpt(), diskGuid: "6F1C2B44-0000-4000-8000-000000000001" } }],
    [
      "the same table on another install's disk",
      { gpt: ourGpt("5a1e2b3c-0000-4000-8000-000000000000") },
    ],
    [
      "a partition added to liken's table",
      {
        gpt: {
          ...ourGpt(),
          entries: [
            ...ourGpt().entries,
            {
              number: 7,
              start: 64 << 20,
              size: 1 << 20,
              typeGuid: PARTITION_TYPES.storage,
              uuid: "Z",
              name: "data",
            },
          ],
        },
      },
    ],
    [
      "an ext4 made in the ESP",
      { gpt: ourGpt(), found: [{ type: "ext4", usage: "filesystem", offset: 0x100000 }] },
    ],
    ["a filesystem in the journal", { gpt: ourGpt(), signatures: [sig("xfs", 0x500000)] }],
    [
      "a filesystem outside every partition",
      { gpt: ourGpt(), signatures: [sig("LVM2_member", 0x218)] },
    ],
    ["an MBR table", { gpt: ourGpt(), mbrPartitions: 1 }],
    [
      "no table but a filesystem at 1 MiB",
      { found: [{ type: "ext4", usage: "filesystem", offset: 0x100000 }] },
    ],
    ["no table but a filesystem on the disk", { signatures: [sig("ext4", 0x438)] }],
    ["no sane table but an implausible one", { implausible: ["gpt:header-crc"] }],
  ])("calls a claimed disk foreign, the claim stale, after %s", (_, p) => {
    const d = classifyDisk(facts, {
      ...empty,
      claim: claimed(true),
      ...(p as Partial<ContentProbe>),
    });
    expect(d.verdict).toBe("foreign");
    expect(d.reasons[0]).toBe("liken-claim:stale");
    expect(d.claim).toBeUndefined();
  });

  it("calls a claimed disk foreign when the kernel lists partitions no table explains", () => {
    const d = verdict(
      { partitions: [{ path: "/dev/sdb1", start: 1 << 20 }] },
      { claim: claimed(true) },
    );
    expect(d).toEqual(["foreign", ["liken-claim:stale", "partitions"]]);
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

// The table an install with INSTALL_ID writes on its disk number `index`: ESP, slot A,
// slot B, journal, state, one storage role.
function ourGpt(installId = INSTALL_ID, index = 0) {
  const parts = [
    ["liken-esp", PARTITION_TYPES.esp, 1],
    ["liken-a", PARTITION_TYPES.slot, 2],
    ["liken-b", PARTITION_TYPES.slot, 3],
    ["liken-journal", PARTITION_TYPES.journal, 5],
    ["liken-state", PARTITION_TYPES.state, 6],
    ["liken-containerd", PARTITION_TYPES.storage, 7],
  ] as const;
  return {
    diskGuid: tableIdFor(installId, index),
    sectorSize: 512,
    entries: parts.map(([name, typeGuid, mib], i) => ({
      number: i + 1,
      name,
      typeGuid,
      uuid: partitionUuidFor(installId, index, name),
      start: mib << 20,
      size: 1 << 20,
    })),
  };
}
