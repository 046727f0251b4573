// The controller a disk or NIC hangs off: the first PCI device of its chain from the disk or
// NIC towards the root (the NVMe drive itself, the AHCI or RAID controller, the USB host
// controller of a USB disk, the NIC), with the names pci.ids gives its ids.
import { namePciDevice, type PciIds, type PciNames, pciIdsOfModalias } from "../formats/pci-ids.ts";
import type { ChainLevel } from "../hardware/types.ts";
import type { ControllerReport } from "./types.ts";

type Level = Pick<ChainLevel, "subsystem" | "driver" | "modalias">;

function controllerLevel(chain: readonly Level[]): { level: Level; ids: PciIds } | null {
  for (const level of chain) {
    if (level.subsystem !== "pci") continue;
    const ids = pciIdsOfModalias(level.modalias);
    if (ids) return { level, ids };
  }
  return null;
}

/** The controller's ids, for the names to look up; null without a PCI device in the chain. */
export function controllerIds(chain: readonly Level[]): PciIds | null {
  return controllerLevel(chain)?.ids ?? null;
}

/** The controller with its names; null for a chain without a PCI device (a virtual one). */
export function controllerOf(chain: readonly Level[], names: PciNames): ControllerReport | null {
  const found = controllerLevel(chain);
  if (!found) return null;
  const { level, ids } = found;
  return {
    driver: level.driver,
    vendorId: ids.vendor,
    deviceId: ids.device,
    subsystemVendorId: ids.subsystemVendor,
    subsystemDeviceId: ids.subsystemDevice,
    ...namePciDevice(names, ids),
  };
}
