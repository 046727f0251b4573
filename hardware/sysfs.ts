// The sysfs walk: every disk and NIC of the machine with the chain of devices from it up to
// the PCI root, and at each level the bound driver, the module that provides it and the
// modalias (research/hwreport-tui.md section 2; dracut's get_blockdev_drv_through_sys does
// the same). It reads files and links under `root` only ("/" on a machine, a fixture tree in
// tests) and never runs a program.
import { readdirSync, readFileSync, readlinkSync, realpathSync } from "node:fs";
import { basename, dirname, join, relative } from "node:path";
import { orNull } from "../common/or-null.ts";
import type { ChainLevel } from "./types.ts";

/** A chain level as sysfs shows it, before any release is asked about it. */
export type SysLevel = Omit<ChainLevel, "boot">;

export interface SysDisk {
  readonly name: string;
  readonly size: number;
  readonly model: string | null;
  readonly serial: string | null;
  readonly removable: boolean;
  readonly readOnly: boolean;
  readonly chain: readonly SysLevel[];
}

export interface SysNic {
  readonly name: string;
  readonly mac: string | null;
  readonly carrier: boolean;
  readonly speed: number | null;
  readonly operstate: string | null;
  readonly chain: readonly SysLevel[];
}

/**
 * Block devices that are never disks of the machine: loop devices, RAM disks, and
 * device-mapper nodes. A dm node is a mapping over other block devices (on the stick, its
 * own root and the release's, through dm-verity: dm-0 and dm-1; elsewhere LVM volumes and
 * dm-crypt), never hardware, so it has no driver chain to judge and nothing to install on;
 * the disks under it are listed themselves.
 */
const NOT_DISKS = /^(loop\d+|ram\d+|zram\d+|dm-\d+)$/;

/** Driver names whose module has another name (dracut's get_module_name, and friends). */
const MODULE_OF_DRIVER: Readonly<Record<string, string>> = {
  sd: "sd_mod",
  sr: "sr_mod",
  mmcblk: "mmc_block",
  xhci_hcd: "xhci_pci",
};

/** A driver's name as a module name: `virtio-pci` -> `virtio_pci`, `sd` -> `sd_mod`. */
export function moduleNameOfDriver(driver: string): string {
  const name = driver.replaceAll("-", "_");
  return MODULE_OF_DRIVER[name] ?? name;
}

// Synchronous reads: sysfs answers from memory, and the report reads about a thousand
// files and links, each of which through a promise and the thread pool cost a millisecond
// under emulation.

function text(path: string): string | null {
  const value = orNull(() => readFileSync(path, "utf8"))
    ?.replace(/\0+$/, "")
    .trim();
  return value ? value : null;
}

function linkName(path: string): string | null {
  const target = orNull(() => readlinkSync(path));
  return target === null ? null : basename(target);
}

function resolved(path: string): string | null {
  return orNull(() => realpathSync.native(path));
}

/** The chain from `start` (a directory under root/sys/devices) up to the root of its bus. */
export async function walkChain(root: string, start: string): Promise<SysLevel[]> {
  const devices = join(root, "sys/devices");
  const chain: SysLevel[] = [];
  for (let dir = start; dir.startsWith(`${devices}/`); dir = dirname(dir)) {
    const driver = linkName(join(dir, "driver"));
    const modalias = text(join(dir, "modalias"));
    const subsystem = linkName(join(dir, "subsystem"));
    // Levels with neither are plumbing (block/, nvme/, ata1, SCSI hosts and targets).
    if (driver === null && modalias === null) continue;
    const module = driver === null ? null : linkName(join(dir, "driver", "module"));
    chain.push({
      device: relative(devices, dir),
      subsystem,
      driver,
      module: module ?? (driver === null ? null : moduleNameOfDriver(driver)),
      builtin: driver !== null && module === null,
      modalias,
    });
  }
  return chain;
}

function list(dir: string): string[] {
  return (orNull(() => readdirSync(dir)) ?? []).sort();
}

/** Every disk: /sys/block without loop, ram, zram and device-mapper devices. */
export async function findDisks(rootDir = "/"): Promise<SysDisk[]> {
  const root = realpathSync.native(rootDir);
  const names = list(join(root, "sys/block")).filter((n) => !NOT_DISKS.test(n));
  return Promise.all(
    names.map(async (name): Promise<SysDisk> => {
      const dir = realpathSync.native(join(root, "sys/block", name));
      const size = text(join(dir, "size"));
      const removable = text(join(dir, "removable"));
      const ro = text(join(dir, "ro"));
      const ownSerial = text(join(dir, "serial"));
      const model = text(join(dir, "device", "model"));
      const deviceSerial = text(join(dir, "device", "serial"));
      const chain = await disksChain(root, dir);
      return {
        name,
        size: Number(size ?? 0) * 512, // sysfs counts 512-byte units whatever the sector size
        model,
        serial: ownSerial ?? deviceSerial,
        removable: removable === "1",
        readOnly: ro === "1",
        chain,
      };
    }),
  );
}

/**
 * The chain of a block device. An NVMe namespace under native multipath lives in
 * /sys/devices/virtual/nvme-subsystem; its controllers (`nvme0`, ...) lead to the hardware.
 */
async function disksChain(root: string, dir: string): Promise<SysLevel[]> {
  if (!dir.includes("/virtual/nvme-subsystem/")) return walkChain(root, dir);
  const subsystem = dirname(dir);
  const controllers = list(subsystem).filter((n) => /^nvme\d+$/.test(n));
  const chains = await Promise.all(
    controllers.map((c) => walkChain(root, realpathSync.native(join(subsystem, c)))),
  );
  return chains.flat();
}

/** Every NIC: /sys/class/net entries with a `device` link (lo, bridges and tunnels have none). */
export async function findNics(rootDir = "/"): Promise<SysNic[]> {
  const root = realpathSync.native(rootDir);
  const names = list(join(root, "sys/class/net"));
  const nics = await Promise.all(
    names.map(async (name): Promise<SysNic | undefined> => {
      const dir = resolved(join(root, "sys/class/net", name));
      if (!dir) return undefined;
      const device = resolved(join(dir, "device"));
      if (!device) return undefined;
      const mac = text(join(dir, "address"));
      const carrier = text(join(dir, "carrier"));
      const speed = text(join(dir, "speed"));
      const operstate = text(join(dir, "operstate"));
      const chain = await walkChain(root, device);
      const mbits = Number(speed);
      return {
        name,
        mac,
        carrier: carrier === "1",
        speed: speed !== null && Number.isFinite(mbits) && mbits > 0 ? mbits : null,
        operstate,
        chain,
      };
    }),
  );
  return nics.filter((n): n is SysNic => n !== undefined);
}
