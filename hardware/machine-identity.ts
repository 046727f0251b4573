// What identifies this machine for liken.install=auto: the MACs of its NICs (network
// interfaces with a device behind them, as the hardware report lists them), the SMBIOS
// system serial and UUID from /sys/class/dmi/id (readable by root), or a device tree's serial.
import { readSystemFacts, smbiosValue } from "./smbios.ts";
import { waitForStickDrivers } from "./stick-drivers.ts";
import { findNics } from "./sysfs.ts";

export interface MachineIdentityFacts {
  readonly macs: readonly string[];
  readonly serial: string | null;
  readonly uuid: string | null;
}

/** The facts under `root` ("/", or a test's tree); on the stick, once its drivers loaded. */
export async function readMachineIdentity(root = "/"): Promise<MachineIdentityFacts> {
  if (root === "/") await waitForStickDrivers();
  // NICs with a device behind them, as the hardware report lists them.
  const macs = (await findNics(root))
    .map((n) => n.mac?.toLowerCase())
    .filter((mac): mac is string => mac !== undefined && mac !== "00:00:00:00:00:00")
    .sort();
  const smbios = readSystemFacts(root);
  const uuid = smbiosValue(smbios?.product_uuid);
  return {
    macs,
    serial: smbiosValue(smbios?.product_serial),
    uuid: uuid?.toLowerCase() ?? null,
  };
}
