// The report's TPM section on a machine with QEMU's tpm-crb and the event log captured with
// virtio-net's option ROM (hardware/fixtures/tpm/), laid out as the stick's kernel showed
// them, and on one without a TPM: the value, the text and the JSON.
import { copyFile, mkdir, mkdtemp, readFile, rm, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { lookupPciNames, type PciIds } from "../formats/pci-ids.ts";
import type { Inventory } from "./inventory.ts";
import { renderReport } from "./render.ts";
import { buildReport } from "./report.ts";
import { readTpmReport } from "./tpm.ts";

const FIXTURES = new URL("./fixtures/", import.meta.url).pathname;
const LOGS = new URL("../hardware/fixtures/tpm/", import.meta.url).pathname;
const pciIds = await readFile(join(FIXTURES, "pci.ids"), "utf8");
const pciNames = (ids: readonly PciIds[]) => lookupPciNames(pciIds, ids);
const inventory = async (): Promise<Inventory> => ({
  system: null,
  cpu: null,
  memory: null,
  problems: [],
});
const build = (root: string) =>
  buildReport({ root, inventory, disks: async () => [], kernelLog: async () => [], pciNames });

let root: string;
let bare: string;

async function file(path: string, content: string | Buffer): Promise<void> {
  await mkdir(dirname(join(root, path)), { recursive: true });
  await writeFile(join(root, path), content);
}

async function link(path: string, target: string): Promise<void> {
  await mkdir(dirname(join(root, path)), { recursive: true });
  await symlink(target, join(root, path));
}

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), "liken-hwreport-tpm-"));
  bare = await mkdtemp(join(tmpdir(), "liken-hwreport-no-tpm-"));
  await file("sys/class/tpm/tpm0/tpm_version_major", "2\n");
  await link("sys/class/tpm/tpm0/device/driver", "../../../../bus/acpi/drivers/tpm_crb");
  await mkdir(join(root, "sys/kernel/security/tpm0"), { recursive: true });
  await copyFile(
    join(LOGS, "virtio-rom.bin"),
    join(root, "sys/kernel/security/tpm0/binary_bios_measurements"),
  );
  const nic = "sys/devices/pci0000:00/0000:00:03.0";
  await file(`${nic}/vendor`, "0x1af4\n");
  await file(`${nic}/device`, "0x1000\n");
  await file(`${nic}/subsystem_vendor`, "0x1af4\n");
  await file(`${nic}/subsystem_device`, "0x0001\n");
  await link(`${nic}/driver`, "../../../bus/pci/drivers/virtio-pci");
  await link("sys/bus/pci/devices/0000:00:03.0", `../../../devices/pci0000:00/0000:00:03.0`);
});
afterAll(async () => {
  await rm(root, { recursive: true, force: true });
  await rm(bare, { recursive: true, force: true });
});

describe("the report's TPM", () => {
  it("shows a TPM 2.0 on CRB and the NIC whose option ROM the firmware ran", async () => {
    const report = await build(root);
    expect(report.tpm).toEqual({
      present: true,
      version: "2.0",
      driver: "tpm_crb",
      manufacturer: null,
      firmware: null,
      eventLog: "/sys/kernel/security/tpm0/binary_bios_measurements",
      optionRoms: {
        kind: "found",
        devices: [
          {
            address: "0000:00:03.0",
            path: "PciRoot(0x0)/Pci(0x3,0x0)/Offset(0x12800,0x3CDFF)",
            vendorId: "1af4",
            deviceId: "1000",
            vendor: "Red Hat, Inc.",
            device: "Virtio network device",
            driver: "virtio-pci",
          },
        ],
      },
    });
    const text = renderReport(report);
    expect(text).toContain(
      [
        "TPM",
        "  version     2.0 (driver tpm_crb)",
        "  maker       unknown",
        "  event log   /sys/kernel/security/tpm0/binary_bios_measurements",
        "  option ROMs the firmware ran option ROMs of: 00:03.0 Red Hat, Inc. Virtio network device; enrolling without Microsoft's UEFI CA would stop them",
        "",
      ].join("\n"),
    );
    // After the system, before the CPU.
    expect(text.indexOf("\nTPM\n")).toBeGreaterThan(text.indexOf("System"));
    expect(text.indexOf("\nTPM\n")).toBeLessThan(text.indexOf("CPU and memory"));
    expect(JSON.parse(JSON.stringify(report)).tpm).toEqual(report.tpm);
  });

  it("asks a TPM 2.0 who made it, and leaves the maker unknown when it cannot say", async () => {
    const identity = { manufacturer: "IFX", vendor: "SLB9670", firmware: "7.85.4555.0" };
    const asked = await readTpmReport(root, pciNames, async () => identity);
    expect(asked).toMatchObject({ manufacturer: "IFX", firmware: "7.85.4555.0" });
    expect(renderReport({ ...(await build(root)), tpm: asked })).toContain(
      "  maker       IFX, firmware 7.85.4555.0\n",
    );
    const refused = await readTpmReport(root, pciNames, () =>
      Promise.reject(new Error("/dev/tpmrm0: permission denied")),
    );
    expect(refused).toMatchObject({ present: true, manufacturer: null, firmware: null });
  });

  it("says no option ROMs ran when the log has none", async () => {
    await copyFile(
      join(LOGS, "virtio-no-rom.bin"),
      join(root, "sys/kernel/security/tpm0/binary_bios_measurements"),
    );
    const report = await build(root);
    expect(report.tpm.optionRoms).toEqual({ kind: "none" });
    expect(renderReport(report)).toContain("  option ROMs no option ROMs ran\n");
  });

  it("says no TPM, and that it could not check, on a machine without one", async () => {
    const report = await build(bare);
    expect(report.tpm).toEqual({
      present: false,
      version: null,
      driver: null,
      manufacturer: null,
      firmware: null,
      eventLog: null,
      optionRoms: { kind: "unknown", why: "no TPM", detail: null },
    });
    expect(renderReport(report)).toContain(
      "TPM\n  no TPM\n  option ROMs could not check: no TPM\n",
    );
  });
});
