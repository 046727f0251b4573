// A device in a sysfs tree, read the way systemd's sd-device reads one (systemd-stable
// v252.31, src/libsystemd/sd-device/sd-device.c), for hardware/net-id.ts. The tree sits
// under `root` ("/" on a machine, a fixture folder in tests); paths are kept as udev sees
// them ("/sys/devices/...") so that code matching on them reads like udev's.
import { lstatSync, readdirSync, readFileSync, readlinkSync, realpathSync } from "node:fs";
import { basename, join, posix, relative } from "node:path";
import { orNull } from "../common/or-null.ts";

export interface SysDevice {
  /** The root folder the tree is read from, resolved. */
  readonly root: string;
  /** udev's syspath: "/sys/devices/...", links resolved. */
  readonly syspath: string;
  /** The last component of the syspath. */
  readonly sysname: string;
}

// Synchronous reads: sysfs answers from memory, and naming a NIC reads hundreds of files
// and links, each of which through a promise and the thread pool cost a millisecond under
// emulation. The functions stay async for their callers.

/** The device a path under root names (links resolved), or null when it is none. */
export async function deviceAt(root: string, path: string): Promise<SysDevice | null> {
  const realRoot = realpathSync.native(root);
  const real = orNull(() => realpathSync.native(join(realRoot, path)));
  if (real === null) return null;
  const rel = relative(realRoot, real);
  if (rel.startsWith("..")) return null;
  const syspath = `/${rel.split("\\").join("/")}`;
  if (!isDevice(realRoot, syspath)) return null;
  return { root: realRoot, syspath, sysname: basename(syspath) };
}

// sd_device_new_from_syspath(): under /sys/devices a device has a uevent file; elsewhere
// under /sys any folder is one.
function isDevice(root: string, syspath: string): boolean {
  if (syspath !== "/sys" && !syspath.startsWith("/sys/")) return false;
  if (syspath === "/sys/devices" || syspath.startsWith("/sys/devices/")) {
    return orNull(() => lstatSync(join(root, syspath, "uevent"))) !== null;
  }
  return orNull(() => lstatSync(join(root, syspath)))?.isDirectory() ?? false;
}

/** sd_device_get_parent(): the nearest folder above that is a device, below /sys. */
export async function parentOf(dev: SysDevice): Promise<SysDevice | null> {
  for (let p = posix.dirname(dev.syspath); p !== "/sys" && p !== "/"; p = posix.dirname(p)) {
    if (isDevice(dev.root, p)) return { root: dev.root, syspath: p, sysname: basename(p) };
  }
  return null;
}

/** The device a link in dev's folder points to (sd_device_new_child), e.g. "physfn". */
export async function childLink(dev: SysDevice, name: string): Promise<SysDevice | null> {
  return deviceAt(dev.root, join(dev.syspath, name));
}

/** The names in dev's folder. */
export async function entries(dev: SysDevice, sub = ""): Promise<string[]> {
  return orNull(() => readdirSync(join(dev.root, dev.syspath, sub))) ?? [];
}

/**
 * sd_device_get_sysattr_value(): a file's text without its trailing newlines, or null when
 * it is missing, a folder, not readable by its owner, or fails to read. A link reads as its
 * target's name for driver, subsystem and module only.
 */
export async function attr(dev: SysDevice, name: string): Promise<string | null> {
  const path = join(dev.root, dev.syspath, name);
  const st = orNull(() => lstatSync(path));
  if (!st) return null;
  if (st.isSymbolicLink()) {
    if (!["driver", "subsystem", "module"].includes(name)) return null;
    return basename(readlinkSync(path));
  }
  if (st.isDirectory() || (st.mode & 0o400) === 0) return null;
  const text = orNull(() => readFileSync(path, "latin1"));
  return text === null ? null : text.replace(/[\n\r]+$/, "");
}

/** A binary attribute (PCI config space), or null. */
export async function attrBytes(dev: SysDevice, name: string): Promise<Buffer | null> {
  return orNull(() => readFileSync(join(dev.root, dev.syspath, name)));
}

/** sd_device_get_subsystem(): the name of the subsystem link's target. */
export async function subsystemOf(dev: SysDevice): Promise<string | null> {
  const target = orNull(() => readlinkSync(join(dev.root, dev.syspath, "subsystem")));
  return target === null ? null : basename(target);
}

/** A property of the device's uevent file (DEVTYPE, IFINDEX, ...), or null. */
export async function ueventValue(dev: SysDevice, key: string): Promise<string | null> {
  const text = await attr(dev, "uevent");
  for (const line of (text ?? "").split("\n")) {
    if (line.startsWith(`${key}=`)) return line.slice(key.length + 1);
  }
  return null;
}

/** sd_device_get_parent_with_subsystem_devtype(): the nearest ancestor (not dev itself). */
export async function ancestorWith(
  dev: SysDevice,
  subsystem: string,
  devtype?: string,
): Promise<SysDevice | null> {
  for (let p = await parentOf(dev); p; p = await parentOf(p)) {
    if ((await subsystemOf(p)) !== subsystem) continue;
    if (devtype === undefined || (await ueventValue(p, "DEVTYPE")) === devtype) return p;
  }
  return null;
}

/** Whether `path` (under root) exists. */
export async function exists(root: string, path: string): Promise<boolean> {
  return orNull(() => lstatSync(join(root, path))) !== null;
}
