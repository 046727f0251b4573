// What identifies this machine for liken.install=auto: the MACs of its NICs (network
// interfaces with a device behind them, as the hardware report lists them), the SMBIOS
// system serial and UUID from /sys/class/dmi/id (readable by root).
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { smbiosValue } from "./smbios-value.ts";
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
  const read = (path: string) =>
    readFile(join(root, path), "utf8").then(
      (text) => text.trim(),
      () => null,
    );
  // NICs with a device behind them, as the hardware report lists them.
  const macs = (await findNics(root))
    .map((n) => n.mac?.toLowerCase())
    .filter((mac): mac is string => mac !== undefined && mac !== "00:00:00:00:00:00")
    .sort();
  const uuid = smbiosValue(await read("sys/class/dmi/id/product_uuid"));
  return {
    macs,
    serial: smbiosValue(await read("sys/class/dmi/id/product_serial")),
    uuid: uuid?.toLowerCase() ?? null,
  };
}
