import { describe, expect, it } from "vitest";
import type { ClaimSummary, Disk } from "../../hardware/disks/types.ts";
import type { Manifest } from "../../manifest/types.ts";
import { plannerDisk } from "../../test/fixtures/disks.ts";
import { planRepair } from "./plan-repair.ts";

const MIB = 1024 * 1024;
const GIB = 1024 * MIB;
const ID = "7d0c9e2a-1b3f-4c5d-8e9f-0a1b2c3d4e5f";

const manifest: Manifest = {
  cluster: "mycluster",
  release: { version: "1.0.0" },
  layout: { esp: 512 * MIB, slot: 2 * GIB, crash_journal: 64 * MIB, state: GIB },
  storage: [],
  machines: [
    {
      name: "leader-1",
      role: "leader",
      ports: [],
      modules: [],
      nameservers: [],
      interfaces: [],
      system_disk: { mirror: true },
      reboot_policy: "Automatic",
    },
  ],
};

function member(path: string, n: 1 | 2, claim: Partial<ClaimSummary> = {}): Disk {
  return plannerDisk(path, 64 * GIB, "liken", {
    claim: {
      cluster: "mycluster",
      machine: "leader-1",
      installId: ID,
      release: "1.0.0",
      use: "system",
      complete: true,
      createdAt: "2026-12-05T10:00:00Z",
      mirror: { member: n, of: 2, peer: { serial: "S2" } },
      ...claim,
    },
  });
}

const plan = (disks: Disk[]) =>
  planRepair({ disks, manifest, machine: "leader-1", survivorSystemEnd: 6 * GIB });

describe("planRepair", () => {
  it("takes the first blank disk in the missing member's place", () => {
    const result = plan([member("/dev/sda", 1), plannerDisk("/dev/sdc", 64 * GIB)]);
    expect(result.ok && [result.target.path, result.member]).toEqual(["/dev/sdc", 2]);
  });

  it("finishes a repair that was stopped on the disk it began, before any blank disk", () => {
    const partial = member("/dev/sdd", 2, { complete: false });
    const result = plan([member("/dev/sda", 1), plannerDisk("/dev/sdc", 64 * GIB), partial]);
    expect(result.ok && result.target.path).toBe("/dev/sdd");
  });

  it("refuses a disk too small, another install's partial disk and one with data, naming each", () => {
    const result = plan([
      member("/dev/sda", 1),
      plannerDisk("/dev/sdb", 4 * GIB),
      member("/dev/sdc", 2, { complete: false, installId: "11111111-2222-4333-8444-555555555555" }),
      plannerDisk("/dev/sdd", 64 * GIB, "foreign", { reasons: ["signature:xfs@0x0"] }),
    ]);
    expect(result.ok || result.what).toBe(
      "no blank disk can take member 2 of the mirror of mycluster/leader-1: /dev/sdb is smaller than the mirror's system partitions (6 GiB); /dev/sdc liken (holds an install); /dev/sdd foreign (signature:xfs@0x0)",
    );
  });
});
