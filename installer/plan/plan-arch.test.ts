// A machine's arch in the planner: a release of another arch is refused before anything is
// written, naming the stick that installs the machine; the same arch plans as before.
import { describe, expect, it } from "vitest";
import type { Arch } from "../../common/arch.ts";
import type { Manifest } from "../../manifest/types.ts";
import { plannerDisk } from "../../test/fixtures/disks.ts";
import { planInstall } from "./plan-install.ts";

const MIB = 1024 * 1024;
const GIB = 1024 * MIB;

function manifest(arch: Arch | undefined): Manifest {
  return {
    cluster: "mycluster",
    release: { version: "1.0.0" },
    layout: { esp: 512 * MIB, slot: 2 * GIB, crash_journal: 64 * MIB, state: GIB },
    storage: [],
    machines: [
      {
        name: "ampere-1",
        role: "leader",
        ports: [],
        modules: [],
        nameservers: [],
        interfaces: [],
        reboot_policy: "Automatic",
        ...(arch ? { arch } : {}),
      },
    ],
  };
}

function plan(machineArch: Arch | undefined, releaseArch: Arch | undefined) {
  return planInstall({
    disks: [plannerDisk("/dev/vda", 32 * GIB, "blank")],
    manifest: manifest(machineArch),
    machine: "ampere-1",
    release: {
      version: "1.0.0",
      rootfsSize: 64 * MIB,
      ...(releaseArch ? { arch: releaseArch } : {}),
    },
    wipe: false,
    paths: [],
    newInstallId: "0b7e8a52-34c1-4b7f-9a55-3f1d2e4c5a6b",
    now: 1_780_000_000,
  });
}

describe("a machine's arch against the release's", () => {
  it("refuses an arm64 machine from an amd64 release, naming the stick that installs it", () => {
    const p = plan("arm64", "amd64");
    if (p.kind !== "refused") throw new Error(p.kind);
    expect(p.failure.reason).toBe("OtherArch");
    expect(p.failure.message).toBe(
      "machine ampere-1 is an arm64 machine (its arch in the manifest), and release 1.0.0 is for amd64 machines",
    );
    expect(p.failure.hint).toContain("liken-stick release --arch arm64");
  });

  it("refuses a machine that names no arch (amd64) from an arm64 release", () => {
    const p = plan(undefined, "arm64");
    if (p.kind !== "refused") throw new Error(p.kind);
    expect(p.failure.reason).toBe("OtherArch");
    expect(p.failure.message).toContain("is an amd64 machine");
  });

  it("plans the same arch as before, and a release without an arch is amd64's", () => {
    expect(plan("arm64", "arm64").kind).toBe("install");
    expect(plan(undefined, undefined).kind).toBe("install");
    expect(plan("amd64", undefined).kind).toBe("install");
  });
});
