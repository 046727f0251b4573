import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, expect, it } from "vitest";
import { DEVICE_TREE_DIR, SMBIOS_DIR } from "../hardware/smbios.ts";
import { readIdentity } from "./identity.ts";

let root: string;
let dmi: string;
beforeEach(async () => {
  root = await mkdtemp(join(tmpdir(), "liken-dmi-"));
  dmi = join(root, SMBIOS_DIR);
});
afterEach(() => rm(root, { recursive: true, force: true }));

it("reads vendor, model and serial, and says unknown for what is missing or empty", async () => {
  await mkdir(dmi, { recursive: true });
  await writeFile(join(dmi, "sys_vendor"), "Supermicro\n");
  await writeFile(join(dmi, "product_name"), "   \n");
  expect(await readIdentity(root)).toEqual({
    vendor: "Supermicro",
    model: "unknown",
    serial: "unknown",
  });
  await writeFile(join(dmi, "product_name"), "SYS-1029P\n");
  await writeFile(join(dmi, "product_serial"), "S123\n");
  expect(await readIdentity(root)).toEqual({
    vendor: "Supermicro",
    model: "SYS-1029P",
    serial: "S123",
  });
});

it("says unknown for a placeholder the firmware left, as the hardware report leaves it out", async () => {
  await mkdir(dmi, { recursive: true });
  await writeFile(join(dmi, "sys_vendor"), "To be filled by O.E.M.\n");
  await writeFile(join(dmi, "product_name"), "Default string\n");
  await writeFile(join(dmi, "product_serial"), "System Serial Number\n");
  expect(await readIdentity(root)).toEqual({
    vendor: "unknown",
    model: "unknown",
    serial: "unknown",
  });
});

// An Arm board without SMBIOS, as its device tree describes it (the properties are
// NUL-terminated strings, as the kernel shows them).
it("reads a machine without SMBIOS from its device tree: model, vendor prefix, serial", async () => {
  const dt = join(root, DEVICE_TREE_DIR);
  await mkdir(dt, { recursive: true });
  await writeFile(join(dt, "model"), "Raspberry Pi 4 Model B Rev 1.4\0");
  await writeFile(join(dt, "compatible"), "raspberrypi,4-model-b\0brcm,bcm2711\0");
  await writeFile(join(dt, "serial-number"), "10000000a1b2c3d4\0");
  expect(await readIdentity(root)).toEqual({
    vendor: "raspberrypi",
    model: "Raspberry Pi 4 Model B Rev 1.4",
    serial: "10000000a1b2c3d4",
  });
  // SMBIOS, where a machine has it, is what the firmware says, over its device tree.
  await mkdir(dmi, { recursive: true });
  await writeFile(join(dmi, "sys_vendor"), "Ampere\n");
  await writeFile(join(dmi, "product_name"), "Mt. Jade\n");
  expect(await readIdentity(root)).toMatchObject({ vendor: "Ampere", model: "Mt. Jade" });
});

it("says unknown for a device tree without a model (an ACPI machine's stub)", async () => {
  await mkdir(join(root, DEVICE_TREE_DIR, "chosen"), { recursive: true });
  expect(await readIdentity(root)).toEqual({
    vendor: "unknown",
    model: "unknown",
    serial: "unknown",
  });
});
