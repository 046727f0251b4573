// Who this machine is, as the firmware says (SMBIOS through sysfs, hardware/smbios.ts):
// read without any tool, and "unknown" for what is missing, unreadable (product_serial is
// root-only) or a placeholder the firmware left ("To be filled by O.E.M."), as the hardware
// report leaves those out.
import { join } from "node:path";
import { readSmbios, SMBIOS_DIR, smbiosValue } from "../hardware/smbios.ts";
import type { Identity } from "./types.ts";

const DMI_DIR = join("/", SMBIOS_DIR);

export async function readIdentity(dir = DMI_DIR): Promise<Identity> {
  const smbios = readSmbios(dir);
  const shown = (value: string | undefined) => smbiosValue(value) ?? "unknown";
  return {
    vendor: shown(smbios?.sys_vendor),
    model: shown(smbios?.product_name),
    serial: shown(smbios?.product_serial),
  };
}
