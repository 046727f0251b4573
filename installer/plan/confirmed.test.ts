import { describe, expect, it } from "vitest";
import type { Disk } from "../../hardware/disks/types.ts";
import type { Manifest } from "../../manifest/types.ts";
import { plannerDisk } from "../../test/fixtures/disks.ts";
import { confirmedPlanDrift } from "./confirmed.ts";
import { planLayout } from "./plan-layout.ts";
import type { Layout } from "./types.ts";

const MIB = 1024 * 1024;
const GIB = 1024 * MIB;
const ID = "0b7e8a52-34c1-4b7f-9a55-3f1d2e4c5a6b";
const manifest: Manifest = {
  cluster: "mycluster",
  release: { version: "1.0.0" },
  layout: { esp: 512 * MIB, slot: 2 * GIB, crash_journal: 64 * MIB, state: GIB },
  storage: [{ role: "containerd", size: 20 * GIB }],
  machines: [
    {
      name: "leader-1",
      role: "leader",
      ports: [],
      modules: [],
      nameservers: [],
      interfaces: [],
      reboot_policy: "Automatic",
    },
  ],
};

function layout(disks: Disk[], wipe = false): Layout {
  const result = planLayout({ disks, manifest, machine: "leader-1", wipe, newInstallId: ID });
  if (!result.ok) throw new Error(result.failure.message);
  return result.layout;
}

const sdb = (extra: Partial<Disk> = {}) =>
  plannerDisk("/dev/sdb", 64 * GIB, "blank", { serial: "S1", wwn: "0x5000c500a1b2c3d4", ...extra });

describe("the confirmed plan against the plan of the disks now", () => {
  it("holds when nothing changed", () => {
    expect(confirmedPlanDrift(layout([sdb()]), layout([sdb()]))).toBeUndefined();
  });

  it("holds when this install claimed the disk on an earlier attempt", () => {
    const claimed = sdb({
      verdict: "liken",
      claim: {
        cluster: "mycluster",
        machine: "leader-1",
        installId: ID,
        release: "1.0.0",
        use: "system",
        complete: false,
        createdAt: "2026-12-01T00:00:00.000Z",
      },
    });
    expect(confirmedPlanDrift(layout([sdb()]), layout([claimed]))).toBeUndefined();
  });

  it.each([
    ["another disk in its place (serial)", sdb({ serial: "S2" }), /serial was S1, now S2/],
    ["another disk in its place (WWN)", sdb({ wwn: "0x5000c500ffffffff" }), /wwn was/],
    ["a disk of another size", sdb({ size: 128 * GIB }), /size was/],
  ])("stops on %s", (_, now, message) => {
    expect(confirmedPlanDrift(layout([sdb()]), layout([now]))).toMatch(message);
  });

  it("stops when a liken disk to erase now carries another install", () => {
    const claim = (installId: string) => ({
      cluster: "mycluster",
      machine: "leader-1",
      installId,
      release: "1.0.0",
      use: "system" as const,
      complete: true,
      createdAt: "2026-12-01T00:00:00.000Z",
    });
    const before = sdb({ verdict: "liken", claim: claim("11111111-1111-4111-8111-111111111111") });
    const after = sdb({ verdict: "liken", claim: claim("22222222-2222-4222-8222-222222222222") });
    expect(confirmedPlanDrift(layout([before], true), layout([after], true))).toMatch(
      /was to erase-and-write of install 1111.*now erase-and-write of install 2222/,
    );
  });

  it("stops when the plan now writes other disks", () => {
    const sda = plannerDisk("/dev/sda", 64 * GIB, "blank", { serial: "S0" });
    expect(confirmedPlanDrift(layout([sdb()]), layout([sda]))).toMatch(
      "disk /dev/sdb of the plan is now /dev/sda",
    );
  });
});
