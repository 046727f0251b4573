// [encryption] in the planner: a TPM 2.0 and a place for the recovery key, or a refusal
// that writes nothing; with both, a layout that says its volumes are encrypted.
import { describe, expect, it } from "vitest";
import type { TpmPresence } from "../../hardware/tpm/presence.ts";
import type { Manifest } from "../../manifest/types.ts";
import { plannerDisk } from "../../test/fixtures/disks.ts";
import { type InstallPlanInput, planInstall } from "./plan-install.ts";

const MIB = 1024 * 1024;
const GIB = 1024 * MIB;

function manifest(recovery: "report" | "console"): Manifest {
  return {
    cluster: "mycluster",
    release: { version: "1.0.0" },
    layout: { esp: 512 * MIB, slot: 2 * GIB, crash_journal: 64 * MIB, state: GIB },
    storage: [{ role: "data", size: "rest" }],
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
    encryption: { tpm: true, recovery },
  };
}

const TPM2: TpmPresence = { version: "2.0", driver: "tpm_crb", manufacturer: null, eventLog: null };

function plan(over: Partial<InstallPlanInput>) {
  return planInstall({
    disks: [plannerDisk("/dev/vda", 32 * GIB, "blank")],
    manifest: manifest("report"),
    machine: "leader-1",
    release: { version: "1.0.0", rootfsSize: 64 * MIB },
    wipe: false,
    paths: [],
    newInstallId: "0b7e8a52-34c1-4b7f-9a55-3f1d2e4c5a6b",
    now: 1_780_000_000,
    ...over,
  });
}

describe("an encrypted install's plan", () => {
  it("is refused NoTpm on a machine without a TPM, or with a TPM 1.2, saying what to turn on", () => {
    for (const tpm of [null, { ...TPM2, version: "1.2" as const }]) {
      const p = plan({ tpm, recoveryTo: ["report"] });
      if (p.kind !== "refused") throw new Error(p.kind);
      expect(p.failure.reason).toBe("NoTpm");
      expect(p.failure.message).toContain(tpm ? "a TPM 1.2, not a TPM 2.0" : "no TPM");
      expect(p.failure.hint).toContain("firmware's setup");
    }
  });

  it("is refused RecoveryKeyNowhere when the key's place is not one this install has", () => {
    const noReport = plan({ tpm: TPM2, recoveryTo: ["console"] });
    if (noReport.kind !== "refused") throw new Error(noReport.kind);
    expect(noReport.failure.reason).toBe("RecoveryKeyNowhere");
    expect(noReport.failure.hint).toContain("liken.report=URL");
    const noScreen = plan({ manifest: manifest("console"), tpm: TPM2, recoveryTo: ["report"] });
    expect(noScreen.kind === "refused" && noScreen.failure.reason).toBe("RecoveryKeyNowhere");
  });

  it("with a TPM 2.0 and the key's place, lays out the disk as always and marks it encrypted", () => {
    const p = plan({ tpm: TPM2, recoveryTo: ["report", "console"] });
    if (p.kind !== "install") throw new Error(p.kind);
    expect(p.layout.encryption).toEqual({ tpm: true, recovery: "report" });
    const plain = plan({ manifest: { ...manifest("report"), encryption: undefined } });
    if (plain.kind !== "install") throw new Error(plain.kind);
    expect(plain.layout.encryption).toBeUndefined();
    expect(p.layout.disks).toEqual(plain.layout.disks);
  });
});
