import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { PARTITION_TYPES } from "../../formats/gpt-types.ts";
import type { Disk, Verdict } from "../../hardware/disks/types.ts";
import type { Manifest } from "../../manifest/types.ts";
import { plannerDisk } from "../../test/fixtures/disks.ts";
import { type PlanInput, planLayout } from "./plan-layout.ts";
import type { Layout } from "./types.ts";

const MIB = 1024 * 1024;
const GIB = 1024 * MIB;
const ID = "0b7e8a52-34c1-4b7f-9a55-3f1d2e4c5a6b";

const manifest: Manifest = {
  cluster: "mycluster",
  release: { version: "1.0.0" },
  layout: { esp: 512 * MIB, slot: 2 * GIB, crash_journal: 64 * MIB, state: GIB },
  storage: [
    { role: "containerd", size: 20 * GIB },
    { role: "local-volumes", size: "rest" },
  ],
  machines: [
    {
      name: "leader-1",
      role: "leader",
      ports: ["eno1"],
      modules: [],
      nameservers: [],
      interfaces: [],
      reboot_policy: "Automatic",
    },
    {
      name: "worker-1",
      role: "follower",
      ports: [],
      modules: [],
      nameservers: [],
      interfaces: [],
      system_disk: { serial: "S4EVNX0N123456" },
      reboot_policy: "Automatic",
    },
  ],
};

const disk = plannerDisk;

function plan(disks: Disk[], over: Partial<PlanInput> = {}) {
  return planLayout({
    disks,
    manifest,
    machine: "leader-1",
    wipe: false,
    newInstallId: ID,
    ...over,
  });
}

function layoutOf(result: ReturnType<typeof plan>): Layout {
  if (!result.ok) throw new Error(`no layout: ${result.failure.message}`);
  return result.layout;
}

describe("planLayout", () => {
  it("lays out one blank disk: system partitions, then the roles, the rest to the end", () => {
    const layout = layoutOf(plan([disk("/dev/vda", 64 * GIB)]));
    const [d] = layout.disks;
    expect(d?.use).toBe("system");
    expect(d?.partitions.map((p) => [p.label, p.start / MIB, p.size / MIB])).toEqual([
      ["liken-esp", 1, 512],
      ["liken-a", 513, 2048],
      ["liken-b", 2561, 2048],
      ["liken-journal", 4609, 64],
      ["liken-state", 4673, 1024],
      ["liken-containerd", 5697, 20480],
      ["liken-local-volumes", 26177, 64 * 1024 - 26177 - 1],
    ]);
    expect(d?.partitions.map((p) => p.typeGuid)).toEqual([
      PARTITION_TYPES.esp,
      PARTITION_TYPES.slot,
      PARTITION_TYPES.slot,
      PARTITION_TYPES.journal,
      PARTITION_TYPES.state,
      PARTITION_TYPES.storage,
      PARTITION_TYPES.storage,
    ]);
    expect(d?.free).toBe(0);
    expect(layout.systemDiskWhy).toBe(
      "/dev/vda is the first eligible disk in stable order (transport, serial, WWN, path)",
    );
  });

  it("gives the same partition UUIDs for the same install id, and different ones for another", () => {
    const a = layoutOf(plan([disk("/dev/vda", 64 * GIB)]));
    const b = layoutOf(plan([disk("/dev/vda", 64 * GIB)]));
    const c = layoutOf(
      plan([disk("/dev/vda", 64 * GIB)], { newInstallId: "11111111-2222-4333-8444-555555555555" }),
    );
    expect(a).toEqual(b);
    expect(c.disks[0]?.partitions[0]?.partUuid).not.toBe(a.disks[0]?.partitions[0]?.partUuid);
    expect(a.disks[0]?.partitions[0]?.partUuid).toMatch(
      /^[0-9A-F]{8}-[0-9A-F]{4}-8[0-9A-F]{3}-[89AB][0-9A-F]{3}-[0-9A-F]{12}$/,
    );
  });

  it("puts a role that does not fit on the system disk onto the next eligible disk", () => {
    const layout = layoutOf(
      plan([
        disk("/dev/sdb", 64 * GIB, "blank", { transport: "sata" }),
        disk("/dev/nvme0n1", 16 * GIB, "blank", { transport: "nvme" }),
      ]),
    );
    expect(layout.disks.map((d) => [d.path, d.use, d.partitions.map((p) => p.label)])).toEqual([
      [
        "/dev/nvme0n1",
        "system",
        ["liken-esp", "liken-a", "liken-b", "liken-journal", "liken-state", "liken-local-volumes"],
      ],
      ["/dev/sdb", "storage", ["liken-containerd"]],
    ]);
  });

  it("refuses a disk too small for a role, naming what each disk has free", () => {
    const result = plan([disk("/dev/vda", 8 * GIB)]);
    expect(result).toEqual({
      ok: false,
      failure: {
        reason: "DiskTooSmall",
        message: "storage role containerd (20 GiB) fits on no disk: /dev/vda has 2.4 GiB free",
        hint: "attach another blank disk, or shrink the role in the manifest",
        considered: [],
      },
    });
  });

  it("says why every disk was left out when none is eligible", () => {
    const result = plan([
      disk("/dev/sda", 64 * GIB, "foreign", { reasons: ["partition-table:gpt"] }),
      disk("/dev/sdb", 64 * GIB, "liken", {
        reasons: ["liken-claim:complete"],
        claim: {
          cluster: "other",
          machine: "m1",
          installId: ID,
          release: "1.0.0",
          use: "system",
          complete: true,
          createdAt: "",
        },
      }),
      disk("/dev/sdc", 64 * GIB, "unsupported", { reasons: ["missing-driver:nvme"] }),
      disk("/dev/sdd", 64 * GIB, "foreign", { reasons: ["probe-failed:read:timeout"] }),
    ]);
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.failure.reason).toBe("DiskNotBlank");
    expect(result.failure.message).toBe(
      "no blank disk: /dev/sdb holds the liken install of other/m1, another cluster",
    );
    // Another cluster's disk is never worth the advice to wipe.
    expect(result.failure.hint).toBe(
      "attach a blank disk; liken erases another cluster's disk only when wipe and reinstall names that cluster",
    );
    expect(result.failure.considered.map((c) => `${c.path}: ${c.why}`)).toEqual([
      "/dev/sda: holds data liken did not write (partition-table:gpt): liken never writes it",
      "/dev/sdb: holds the liken install of other/m1, another cluster: liken leaves it alone",
      "/dev/sdc: needs a driver the release cannot load at boot (missing-driver:nvme)",
      "/dev/sdd: could not be read (probe-failed:read:timeout): liken never writes a disk it cannot read; check its health (dmesg)",
    ]);
  });

  it("wipes only this cluster's disks, and another cluster's only when named", () => {
    const claim = (cluster: string) => ({
      cluster,
      machine: "leader-1",
      installId: ID,
      release: "1.0.0",
      use: "system" as const,
      complete: true,
      createdAt: "",
    });
    const ours = disk("/dev/sda", 64 * GIB, "liken", { claim: claim("mycluster") });
    const theirs = disk("/dev/sdb", 64 * GIB, "liken", { claim: claim("other") });
    const wiped = plan([ours, theirs], { wipe: true });
    if (!wiped.ok) throw new Error(wiped.failure.message);
    expect(wiped.layout.disks.map((d) => [d.path, d.action])).toEqual([
      ["/dev/sda", "erase-and-write"],
    ]);
    expect(wiped.layout.leftOut.map((d) => `${d.path}: ${d.why}`)).toEqual([
      "/dev/sdb: holds the liken install of other/leader-1, another cluster: wipe and reinstall erases only mycluster's disks (--wipe-cluster other erases it)",
    ]);
    expect(plan([theirs], { wipe: true }).ok).toBe(false);
    const named = plan([theirs], { wipe: true, wipeClusters: ["other"] });
    if (!named.ok) throw new Error(named.failure.message);
    expect(named.layout.disks.map((d) => [d.path, d.action])).toEqual([
      ["/dev/sdb", "erase-and-write"],
    ]);
  });

  it("points at the hardware report when the only disks lack a driver", () => {
    const result = plan([
      disk("/dev/nvme0n1", 64 * GIB, "unsupported", { reasons: ["missing-driver:nvme"] }),
    ]);
    expect(
      result.ok || [result.failure.reason, result.failure.message, result.failure.hint],
    ).toEqual([
      "MissingDriver",
      "no usable disk: /dev/nvme0n1 needs nvme, which the release cannot load at boot",
      "run liken-stick hwreport with the same release: it names the driver and the disks that need it",
    ]);
  });

  it("says there is no blank disk when every disk holds data", () => {
    const result = plan([
      disk("/dev/sda", 64 * GIB, "foreign", { reasons: ["signature:ext4@0x438"] }),
    ]);
    expect(result.ok || [result.failure.reason, result.failure.message]).toEqual([
      "NoEligibleDisk",
      "no blank disk: every disk holds data or cannot be a target",
    ]);
  });

  it("says a write-protected disk is read-only, not that it holds data", () => {
    const result = plan([
      disk("/tmp/disk.img", 64 * GIB, "ineligible", { reasons: ["read-only"] }),
    ]);
    expect(result.ok || [result.failure.reason, result.failure.message]).toEqual([
      "NoEligibleDisk",
      "no disk can be written: /tmp/disk.img is read-only",
    ]);
  });

  it("targets liken disks only for a wipe", () => {
    const claim = {
      cluster: "mycluster",
      machine: "leader-1",
      installId: ID,
      release: "1.0.0",
      use: "system" as const,
      complete: true,
      createdAt: "",
    };
    const old = disk("/dev/sda", 64 * GIB, "liken", { claim });
    expect(plan([old]).ok).toBe(false);
    const layout = layoutOf(
      plan([old], { wipe: true, newInstallId: "11111111-2222-4333-8444-555555555555" }),
    );
    expect(layout.disks[0]?.action).toBe("erase-and-write");
    expect(layout.installId).toBe("11111111-2222-4333-8444-555555555555");
  });

  it("finishes an interrupted install of this machine with its install id", () => {
    const claim = {
      cluster: "mycluster",
      machine: "leader-1",
      installId: ID,
      release: "1.0.0",
      use: "system" as const,
      complete: false,
      createdAt: "",
    };
    const layout = layoutOf(
      plan([disk("/dev/sda", 64 * GIB), disk("/dev/sdb", 64 * GIB, "liken", { claim })], {
        newInstallId: "11111111-2222-4333-8444-555555555555",
      }),
    );
    expect(layout.installId).toBe(ID);
    expect(layout.disks.map((d) => [d.path, d.action])).toEqual([["/dev/sdb", "resume"]]);
    expect(layout.systemDiskWhy).toBe("/dev/sdb holds the interrupted install being finished");
  });

  it("follows the system_disk selector, and says so", () => {
    const layout = layoutOf(
      plan(
        [
          disk("/dev/sda", 64 * GIB, "blank", { serial: "AAA" }),
          disk("/dev/sdb", 64 * GIB, "blank", { serial: "S4EVNX0N123456" }),
        ],
        { machine: "worker-1" },
      ),
    );
    expect(layout.disks[0]?.path).toBe("/dev/sdb");
    expect(layout.systemDiskWhy).toBe(
      '/dev/sdb is the first eligible disk matching system_disk { serial = "S4EVNX0N123456" }',
    );
  });

  it("refuses when the selected disk holds data, and names it", () => {
    const result = plan(
      [
        disk("/dev/sdb", 64 * GIB, "foreign", {
          serial: "S4EVNX0N123456",
          reasons: ["signature:ext4@0x438"],
        }),
        disk("/dev/sdc", 64 * GIB),
      ],
      { machine: "worker-1" },
    );
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.failure.message).toBe(
      'no eligible disk matches system_disk { serial = "S4EVNX0N123456" }',
    );
    expect(result.failure.considered.map((c) => c.path)).toEqual(["/dev/sdb", "/dev/sdc"]);
  });

  it("refuses a release whose root filesystem is larger than a slot", () => {
    const result = plan([disk("/dev/vda", 64 * GIB)], {
      release: { version: "1.0.0", rootfsSize: 3 * GIB },
    });
    expect(result.ok || result.failure).toEqual({
      reason: "ReleaseTooLarge",
      message: "release 1.0.0's root filesystem (3GiB) is larger than a slot (2GiB)",
      hint: "raise [layout] slot in the manifest, or build a smaller release",
      considered: [],
    });
  });

  it("refuses a machine the manifest does not name", () => {
    const result = plan([disk("/dev/vda", 64 * GIB)], { machine: "leader-2" });
    expect(result.ok || result.failure.message).toBe(
      'the manifest has no machine named "leader-2"',
    );
  });
});

describe("planLayout, for any disks and sizes", () => {
  const verdicts: Verdict[] = [
    "blank",
    "blank",
    "blank",
    "foreign",
    "ineligible",
    "unsupported",
    "liken",
  ];
  const diskArb = fc.record({
    size: fc.integer({ min: 100 * MIB, max: 200 * GIB }),
    verdict: fc.constantFrom(...verdicts),
    sector: fc.constantFrom(512, 4096),
  });
  const sizeArb = (min: number, max: number) => fc.integer({ min, max });
  const manifestArb = fc.record({
    esp: sizeArb(256 * MIB, 2 * GIB),
    slot: sizeArb(256 * MIB, 8 * GIB),
    crash_journal: sizeArb(8 * MIB, 256 * MIB),
    state: sizeArb(64 * MIB, 4 * GIB),
    roles: fc.array(sizeArb(64 * MIB, 64 * GIB), { maxLength: 3 }),
    rest: fc.boolean(),
  });

  it("never overlaps, stays aligned and inside the disk, leaves the backup GPT room, and writes only eligible disks", () => {
    fc.assert(
      fc.property(
        fc.array(diskArb, { minLength: 1, maxLength: 4 }),
        manifestArb,
        fc.boolean(),
        (specs, m, wipe) => {
          const disks = specs.map((s, i) =>
            disk(`/dev/sd${"abcd"[i]}`, s.size, s.verdict, { logicalSectorSize: s.sector }),
          );
          const storage = [
            ...m.roles.map((size, i) => ({ role: `r${i}`, size })),
            ...(m.rest ? [{ role: "rest", size: "rest" as const }] : []),
          ];
          const input = {
            ...manifest,
            layout: { esp: m.esp, slot: m.slot, crash_journal: m.crash_journal, state: m.state },
            storage,
          };
          const result = planLayout({
            disks,
            manifest: input,
            machine: "leader-1",
            wipe,
            newInstallId: ID,
          });
          expect(
            planLayout({ disks, manifest: input, machine: "leader-1", wipe, newInstallId: ID }),
          ).toEqual(result);
          if (!result.ok) {
            expect(result.failure.reason).toMatch(
              /^(NoEligibleDisk|DiskNotBlank|MissingDriver|DiskTooSmall|SectorSizeUnsupported)$/,
            );
            return;
          }
          for (const d of result.layout.disks) {
            const source = disks.find((x) => x.path === d.path) as Disk;
            expect(source.verdict === "blank" || (wipe && source.verdict === "liken")).toBe(true);
            let end = MIB;
            for (const p of d.partitions) {
              expect(p.start % MIB).toBe(0);
              expect(p.size % MIB).toBe(0);
              expect(p.start % d.sectorSize).toBe(0);
              expect(p.start).toBeGreaterThanOrEqual(end);
              expect(p.size).toBeGreaterThanOrEqual(p.content === "storage" ? 64 * MIB : 8 * MIB);
              end = p.start + p.size;
            }
            expect(end).toBeLessThanOrEqual(Math.floor(d.size / MIB) * MIB - MIB);
          }
          const system = result.layout.disks[0];
          // FAT32 in 4 KiB sectors needs 260 MiB: a smaller ESP there would never boot.
          if (system?.sectorSize === 4096)
            expect(system.partitions[0]?.size).toBeGreaterThanOrEqual(260 * MIB);
          expect(
            system?.partitions.find((p) => p.label === "liken-a")?.size,
          ).toBeGreaterThanOrEqual(m.slot);
        },
      ),
      { numRuns: 300 },
    );
  });

  it("refuses a 4Kn disk whose ESP would be too small for FAT32, and takes a 512-byte one", () => {
    const small = { ...manifest, layout: { ...manifest.layout, esp: 256 * MIB } };
    const fourK = disk("/dev/nvme0n1", 64 * GIB, "blank", { logicalSectorSize: 4096 });
    const refused = planLayout({
      disks: [fourK],
      manifest: small,
      machine: "leader-1",
      wipe: false,
      newInstallId: ID,
    });
    expect(refused.ok || refused.failure).toMatchObject({
      reason: "SectorSizeUnsupported",
      message:
        "no eligible disk can boot this layout: /dev/nvme0n1 has 4096-byte sectors, where an ESP of 256 MiB is too small for FAT32 (at least 260 MiB)",
      hint: 'set [layout] esp to at least "260MiB" in the manifest, or attach a disk with 512-byte sectors',
    });
    const other = disk("/dev/sda", 64 * GIB, "blank");
    const taken = planLayout({
      disks: [fourK, other],
      manifest: small,
      machine: "leader-1",
      wipe: false,
      newInstallId: ID,
    });
    expect(taken.ok && taken.layout.disks[0]?.path).toBe("/dev/sda");
    const weird = disk("/dev/sdc", 64 * GIB, "blank", { logicalSectorSize: 520 });
    const none = planLayout({
      disks: [weird],
      manifest,
      machine: "leader-1",
      wipe: false,
      newInstallId: ID,
    });
    expect(none.ok || none.failure.message).toBe(
      "no eligible disk can boot this layout: /dev/sdc has 520-byte sectors: UEFI firmware boots only from 512- and 4096-byte sectors",
    );
  });

  it("gives an error, not a layout, when no disk can hold the system partitions", () => {
    const result = plan([disk("/dev/sda", 4 * GIB), disk("/dev/sdb", 2 * GIB)]);
    expect(result.ok || result.failure.reason).toBe("DiskTooSmall");
    expect(result.ok || result.failure.considered.map((c) => c.why)).toEqual([
      "too small for the system partitions (needs 5.6 GiB)",
      "too small for the system partitions (needs 5.6 GiB)",
    ]);
  });
});
