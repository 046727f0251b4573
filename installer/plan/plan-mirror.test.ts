// The planner with system_disk.mirror: two members laid out alike, each naming the other.
import { describe, expect, it } from "vitest";
import type { Disk } from "../../hardware/disks/types.ts";
import type { Manifest } from "../../manifest/types.ts";
import { plannerDisk as disk } from "../../test/fixtures/disks.ts";
import { planLayout } from "./plan-layout.ts";
import { renderLayout } from "./render.ts";
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
      system_disk: { model: "SAMSUNG MZ7L3*", mirror: true },
      reboot_policy: "Automatic",
    },
  ],
};

const samsung = (path: string, serial: string, extra: Partial<Disk> = {}) =>
  disk(path, 64 * GIB, "blank", { model: "SAMSUNG MZ7L3480", serial, ...extra });

function plan(disks: Disk[]) {
  return planLayout({ disks, manifest, machine: "leader-1", wipe: false, newInstallId: ID });
}

function layoutOf(result: ReturnType<typeof plan>): Layout {
  if (!result.ok) throw new Error(`no layout: ${result.failure.message}`);
  return result.layout;
}

describe("planLayout with a mirrored system disk", () => {
  it("puts the system partitions on the two first matching disks, each naming the other", () => {
    const layout = layoutOf(
      plan([
        samsung("/dev/sdb", "S2", { wwn: "0x5002538e000000b2" }),
        samsung("/dev/sda", "S1"),
        disk("/dev/nvme0n1", 512 * GIB, "blank", { transport: "nvme", serial: "N1" }),
      ]),
    );
    const [one, two] = layout.disks;
    expect(layout.disks.map((d) => d.path)).toEqual(["/dev/sda", "/dev/sdb"]);
    expect(layout.leftOut.map((d) => `${d.path}: ${d.why}`)).toEqual([
      "/dev/nvme0n1: not needed: every role fits on the disks above",
    ]);
    expect(layout.systemDiskWhy).toBe(
      '/dev/sda and /dev/sdb are the two first eligible disks matching system_disk { model = "SAMSUNG MZ7L3*", mirror = true }: the system is mirrored on both',
    );
    expect(one?.mirror).toEqual({ member: 1, peer: { serial: "S2", wwn: "0x5002538e000000b2" } });
    expect(two?.mirror).toEqual({ member: 2, peer: { serial: "S1" } });
    const system = ["liken-esp", "liken-a", "liken-b", "liken-journal", "liken-state"];
    expect(two?.partitions.map((p) => p.label)).toEqual(system);
    expect(two?.partitions.map((p) => [p.start, p.size])).toEqual(
      one?.partitions.slice(0, 5).map((p) => [p.start, p.size]),
    );
    // Each member's partitions have their own PARTUUIDs: the firmware and the initramfs tell them apart.
    const uuids = [...(one?.partitions ?? []), ...(two?.partitions ?? [])].map((p) => p.partUuid);
    expect(new Set(uuids).size).toBe(uuids.length);
    expect(one?.tableId).not.toBe(two?.tableId);
    // The roles stay where they go on one disk; the second member keeps its rest free.
    expect(one?.partitions.map((p) => p.label).slice(5)).toEqual([
      "liken-containerd",
      "liken-local-volumes",
    ]);
    expect(two?.free).toBeGreaterThan(50 * GIB);
  });

  it("shows both members in the plan people read", () => {
    const text = renderLayout(
      layoutOf(plan([samsung("/dev/sda", "S1"), samsung("/dev/sdb", "S2")])),
    );
    expect(text).toContain(
      "/dev/sda  64 GiB  SAMSUNG MZ7L3480 S1  system disk, mirror member 1 of 2, written from blank",
    );
    expect(text).toContain(
      "/dev/sdb  64 GiB  SAMSUNG MZ7L3480 S2  system disk, mirror member 2 of 2, written from blank",
    );
    // The second member keeps its rest free.
    expect(text).toContain("[EAABBJS.........................................................]");
  });

  it("names a member without serial or WWN by its path", () => {
    const layout = layoutOf(
      plan([
        samsung("/dev/sda", "S1"),
        disk("/dev/sdb", 64 * GIB, "blank", { model: "SAMSUNG MZ7L3480" }),
      ]),
    );
    expect(layout.disks[0]?.mirror?.peer).toEqual({ path: "/dev/sdb" });
  });

  it("refuses with one eligible disk, naming it and the others", () => {
    const result = plan([
      samsung("/dev/sda", "S1"),
      samsung("/dev/sdb", "S2", { verdict: "foreign", reasons: ["signature:ext4@0x438"] }),
      disk("/dev/sdc", 64 * GIB, "blank", { model: "WDC" }),
    ]);
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.failure.reason).toBe("NoEligibleDisk");
    expect(result.failure.message).toBe(
      'system_disk { model = "SAMSUNG MZ7L3*", mirror = true } asks for a mirror of two disks, and only /dev/sda is eligible',
    );
    expect(result.failure.hint).toBe(
      "attach a second blank disk the selector matches, or remove mirror = true",
    );
    expect(result.failure.considered.map((c) => `${c.path}: ${c.why}`)).toEqual([
      "/dev/sdb: holds data liken did not write (signature:ext4@0x438): liken never writes it",
      '/dev/sdc: does not match system_disk { model = "SAMSUNG MZ7L3*", mirror = true }',
    ]);
  });

  it("does not take a disk whose driver the release lacks as a member", () => {
    const result = plan([
      samsung("/dev/sda", "S1"),
      samsung("/dev/sdb", "S2", { verdict: "unsupported", reasons: ["missing-driver:mpt3sas"] }),
    ]);
    expect(result.ok || result.failure.considered.map((c) => `${c.path}: ${c.why}`)).toEqual([
      "/dev/sdb: needs a driver the release cannot load at boot (missing-driver:mpt3sas)",
    ]);
  });

  it("leaves a member that cannot boot out, and takes the next", () => {
    const layout = layoutOf(
      plan([
        samsung("/dev/sda", "S1"),
        samsung("/dev/sdb", "S2", { logicalSectorSize: 520 }),
        samsung("/dev/sdc", "S3"),
      ]),
    );
    expect(layout.disks.filter((d) => d.use === "system").map((d) => d.path)).toEqual([
      "/dev/sda",
      "/dev/sdc",
    ]);
    expect(layout.leftOut.map((d) => d.path)).toEqual(["/dev/sdb"]);
  });

  it("finishes an install killed before the second member's claim on the disk it chose", () => {
    const first = layoutOf(plan([samsung("/dev/sda", "S1"), samsung("/dev/sdb", "S2")]));
    const partial = samsung("/dev/sda", "S1", {
      verdict: "liken",
      claim: {
        cluster: "mycluster",
        machine: "leader-1",
        installId: ID,
        release: "1.0.0",
        use: "system",
        complete: false,
        createdAt: "2026-12-05T10:00:00Z",
        mirror: { member: 1, of: 2, peer: { serial: "S2" } },
      },
    });
    const again = layoutOf(
      planLayout({
        disks: [partial, samsung("/dev/sdb", "S2")],
        manifest,
        machine: "leader-1",
        wipe: false,
        newInstallId: "11111111-2222-4333-8444-555555555555",
      }),
    );
    expect(again.installId).toBe(ID);
    expect(again.disks.map((d) => [d.path, d.action, d.mirror?.member])).toEqual([
      ["/dev/sda", "resume", 1],
      ["/dev/sdb", "write", 2],
    ]);
    expect(again.disks.map((d) => d.partitions)).toEqual(
      first.disks.slice(0, 2).map((d) => d.partitions),
    );
  });
});
