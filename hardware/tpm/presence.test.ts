// The TPM as sysfs shows it, on trees laid out as the stick's kernel showed QEMU's tpm-crb
// (scripts/capture-tpm-event-log.ts prints them) and a TPM 1.2 on TIS.
import { mkdir, mkdtemp, rm, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { NO_PCI_NAMES } from "../../formats/pci-ids.ts";
import { readTpmPresence } from "./presence.ts";
import { readOptionRomFinding } from "./read-finding.ts";

let root: string;
beforeEach(async () => {
  root = await mkdtemp(join(tmpdir(), "liken-tpm-presence-"));
});
afterEach(() => rm(root, { recursive: true, force: true }));

async function file(path: string, content: string | Buffer): Promise<void> {
  await mkdir(dirname(join(root, path)), { recursive: true });
  await writeFile(join(root, path), content);
}

async function link(path: string, target: string): Promise<void> {
  await mkdir(dirname(join(root, path)), { recursive: true });
  await symlink(target, join(root, path));
}

describe("the TPM in sysfs", () => {
  it("reads a TPM 2.0 on CRB with its event log", async () => {
    await file("sys/class/tpm/tpm0/tpm_version_major", "2\n");
    await link("sys/class/tpm/tpm0/device/driver", "../../../../bus/acpi/drivers/tpm_crb");
    await file("sys/kernel/security/tpm0/binary_bios_measurements", Buffer.from([1, 2, 3]));
    expect(readTpmPresence(root)).toEqual({
      version: "2.0",
      driver: "tpm_crb",
      manufacturer: null,
      eventLog: "/sys/kernel/security/tpm0/binary_bios_measurements",
    });
    // Bytes that are no event log: the finding says so and why.
    expect(readOptionRomFinding(root, readTpmPresence(root), () => NO_PCI_NAMES)).toEqual({
      kind: "unknown",
      why: "unreadable event log",
      detail:
        "the TPM event log is damaged at byte 0: an event's header needs 32 bytes and the log has 3 left",
    });
  });

  it("reads a TPM 1.2 on TIS, its maker from caps, without securityfs", async () => {
    await file("sys/class/tpm/tpm0/tpm_version_major", "1\n");
    await link("sys/class/tpm/tpm0/device/driver", "../../../bus/pnp/drivers/tpm_tis");
    await file(
      "sys/class/tpm/tpm0/device/caps",
      "Manufacturer: 0x49465800\nTCG version: 1.2\nFirmware version: 3.19\n",
    );
    const presence = readTpmPresence(root);
    expect(presence).toEqual({
      version: "1.2",
      driver: "tpm_tis",
      manufacturer: "IFX",
      eventLog: null,
    });
    expect(readOptionRomFinding(root, presence, () => NO_PCI_NAMES)).toEqual({
      kind: "unknown",
      why: "no event log",
      detail: null,
    });
  });

  it("finds no TPM where the kernel has none", () => {
    expect(readTpmPresence(root)).toBeNull();
    expect(readOptionRomFinding(root, null, () => NO_PCI_NAMES)).toEqual({
      kind: "unknown",
      why: "no TPM",
      detail: null,
    });
  });
});
