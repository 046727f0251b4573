// Who this machine is, as the firmware says (SMBIOS through sysfs, or the device tree,
// hardware/smbios.ts):
// read without any tool, and "unknown" for what is missing, unreadable (product_serial is
// root-only) or a placeholder the firmware left ("To be filled by O.E.M."), as the hardware
// report leaves those out.
import { readSystemFacts, smbiosValue } from "../hardware/smbios.ts";
import type { Identity } from "./types.ts";

/** Under `root` ("/", or a test's tree). */
export async function readIdentity(root = "/"): Promise<Identity> {
  const smbios = readSystemFacts(root);
  const shown = (value: string | undefined) => smbiosValue(value) ?? "unknown";
  return {
    vendor: shown(smbios?.sys_vendor),
    model: shown(smbios?.product_name),
    serial: shown(smbios?.product_serial),
  };
}
