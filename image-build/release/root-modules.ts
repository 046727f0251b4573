// The NIC drivers a release's root carries, with their dependencies and the firmware they
// name. They live in the root, not the initramfs: the initramfs loads every driver a
// modalias asks for, and the boot agent must load the operator's declared modules (with
// their parameters) before any NIC driver, so the agent loads these itself, by modalias.
import { copyFile, lstat, mkdir, readlink, symlink } from "node:fs/promises";
import { dirname, join, normalize } from "node:path";
import { readModuleFirmware } from "../../tools/modinfo.ts";
import type { BootModules, FirmwareFile } from "../inputs/index.ts";
import { installModules } from "../modules-install.ts";
import type { UnpackedInputs } from "../unpacked.ts";

/**
 * The wired NIC drivers of the machines liken installs on: QEMU's and the usual servers'.
 * The stick carries every Ethernet driver; a release's root only these.
 */
export const ROOT_NETWORK_MODULES: readonly string[] = [
  "virtio_net", // QEMU/KVM and most clouds
  "e1000", // QEMU's default NIC, older Intel boards
  "e1000e", // Intel 1G on boards (I217/I219, 82574)
  "igb", // Intel 1G server adapters (I350, I210, 82576)
  "igc", // Intel 2.5G (I225/I226)
  "ixgbe", // Intel 10G (82599, X540, X550)
  "i40e", // Intel 10/25/40G (X710, XL710, XXV710)
  "ice", // Intel 100G (E810): loads its DDP package from firmware
  "iavf", // Intel virtual functions (SR-IOV, AWS/Azure accelerated networking)
  "ixgbevf", // Intel 82599 virtual functions (AWS's older enhanced networking)
  "bnxt_en", // Broadcom NetXtreme-C/E 10-200G (Dell, HPE, Supermicro)
  "bnx2x", // Broadcom NetXtreme II 10G (Dell rNDC, HPE FlexFabric): needs its firmware
  "bnx2", // Broadcom NetXtreme II 1G on PowerEdge R610-R910, ProLiant G6/G7: needs firmware
  "tg3", // Broadcom NetXtreme 1G on most Dell and HPE boards
  "mlx5_core", // Mellanox/NVIDIA ConnectX-4 to ConnectX-7
  "mlx4_en", // Mellanox ConnectX-3, still common in racks
  "qede", // QLogic/Marvell FastLinQ 41000/45000 (HPE, Dell): needs its firmware
  "be2net", // Emulex OneConnect on HPE, IBM and Lenovo blades
  "sfc", // Solarflare/AMD XtremeScale 10/25G
  "r8169", // Realtek 1G/2.5G on small servers and desktops: most chips load firmware
  "ena", // AWS's Elastic Network Adapter
  "gve", // Google Cloud's gVNIC
  "vmxnet3", // VMware's paravirtual NIC
];

/**
 * The filesystems only the root's boot agent mounts (the state partition, an ext4 update
 * medium): ext4 is 2.4 MB of modules that the initramfs, which finds and verifies the slot,
 * does not need, and room there for the servers' storage drivers. The root's init starts
 * loading them before the agent starts.
 */
export const ROOT_FILESYSTEM_MODULES: readonly string[] = [
  "ext4",
  "crc32c_generic", // ext4 asks the crypto API for crc32c at mount
  // LUKS2 volumes ([encryption]): aes-xts-plain64 through dm-crypt
  "dm_crypt",
  "xts",
];

/**
 * The drivers of the declared network's interfaces (hardware/network/): bonds (802.3ad and
 * active-backup) and 802.1Q VLANs. The boot agent loads them when a machine declares one.
 */
export const ROOT_NETWORK_STACK_MODULES: readonly string[] = ["bonding", "8021q"];

/** Where the unpacked firmware packages put their files, the kernel's own path first. */
const FIRMWARE_DIRS = ["lib/firmware", "usr/lib/firmware"];

/**
 * Installs ROOT_FILESYSTEM_MODULES, ROOT_NETWORK_MODULES and ROOT_NETWORK_STACK_MODULES
 * (less `without` and what needs it) and their closure into
 * the root tree's lib/modules/<kernel>/, indexed by depmod so that the root's busybox
 * modprobe loads them by name and by modalias.
 */
export async function installRootModules(
  inputs: UnpackedInputs,
  tree: string,
  without: readonly string[],
): Promise<BootModules> {
  return await installModules(
    inputs,
    tree,
    [...ROOT_FILESYSTEM_MODULES, ...ROOT_NETWORK_MODULES, ...ROOT_NETWORK_STACK_MODULES],
    without,
  );
}

/**
 * Module name -> the firmware files `modinfo -F firmware` names in its .ko under the tree,
 * each carried into the tree's lib/firmware/ when `carry` and a pinned firmware package
 * holds it (the root's modules), else recorded as not carried (the initramfs's: they load
 * before the root is there, and none of them names firmware).
 */
export async function moduleFirmware(
  inputs: UnpackedInputs,
  tree: string,
  modules: BootModules,
  carry: boolean,
): Promise<Map<string, readonly FirmwareFile[]>> {
  const dir = join(tree, "lib/modules", inputs.kernelVersion);
  const named = await readModuleFirmware(modules.modules.map((m) => join(dir, m.path)));
  const firmware = new Map<string, readonly FirmwareFile[]>();
  for (const m of modules.modules) {
    const files: FirmwareFile[] = [];
    for (const file of named.get(join(dir, m.path)) ?? [])
      files.push({ file, carried: carry && (await carryFirmware(inputs.root, tree, file)) });
    if (files.length > 0) firmware.set(m.name, files);
  }
  return firmware;
}

/**
 * Copies lib/firmware/`file` from the unpacked packages into the tree, as the package has
 * it: a symlink stays one, with its target carried too (ice.pkg -> ice-1.3.30.0.pkg); a
 * file only shipped as `.xz` is carried compressed (the kernel's loader reads .xz,
 * CONFIG_FW_LOADER_COMPRESS_XZ). False when no package holds it.
 */
async function carryFirmware(root: string, tree: string, file: string): Promise<boolean> {
  for (const base of FIRMWARE_DIRS)
    for (const name of [file, `${file}.xz`]) {
      const src = join(root, base, name);
      // Not in this firmware folder: the next one is tried.
      const info = await lstat(src).catch(() => undefined);
      if (!info) continue;
      const dest = join(tree, "lib/firmware", name);
      await mkdir(dirname(dest), { recursive: true });
      if (!info.isSymbolicLink()) {
        await copyFile(src, dest);
        return true;
      }
      const target = await readlink(src);
      const resolved = normalize(join(dirname(name), target));
      // a link out of the firmware folder would point at nothing in the root
      if (resolved.startsWith("..") || target.startsWith("/")) return false;
      if (!(await carryFirmware(root, tree, resolved))) return false;
      await symlink(target, dest).catch((error: NodeJS.ErrnoException) => {
        if (error.code !== "EEXIST") throw error;
      });
      return true;
    }
  return false;
}
