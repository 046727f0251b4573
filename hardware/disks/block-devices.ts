// The machine's block devices as `lsblk --tree` lists them, in its order (util-linux 2.38,
// the lsblk of Debian 12 and of the stick), read from sysfs, /proc/self/mountinfo,
// /proc/swaps and udev's database where there is one, without a process: under emulation
// lsblk cost the stick's report a fifth of a second, and its first program loads execa.
// What lsblk reads where (lsblk.c, lsblk-mnt.c, lsblk-properties.c, lib/sysfs.c) is said at
// each field; tools/lsblk.ts runs lsblk itself, and the tests hold the two to the same
// answers. Beyond lsblk, a disk udev knows nothing of gets its serial and WWN from sysfs.
import { readdirSync, readFileSync, readlinkSync, realpathSync, statSync } from "node:fs";
import { basename, dirname } from "node:path";
import { orNull } from "../../common/or-null.ts";
import type { BlockDevice } from "../../tools/lsblk.ts";
import { type DiskIdentity, sysfsIdentity } from "./sysfs-identity.ts";

/**
 * Every block device with its partitions and holders as children (devices stacked on
 * others appear only under them), but those `leaveOut` names (loop devices, say: each is a
 * dozen reads).
 */
export function readBlockDevices(leaveOut: (name: string) => boolean = () => false): BlockDevice[] {
  return withReads(() => {
    const use = readUse();
    return names("/sys/block")
      .filter((n) => !leaveOut(n) && names(`/sys/block/${n}/slaves`).length === 0 && listed(n))
      .sort(byDevno)
      .map((n) => device(n, use));
  });
}

/** The block devices at `paths` (device nodes); undefined for a path that is none the kernel knows. */
export function readBlockDevicesAt(paths: readonly string[]): (BlockDevice | undefined)[] {
  return withReads(() => {
    const use = readUse();
    return paths.map((p) => {
      const name = orNull(() => nameOf(p));
      return name === null ? undefined : device(name, use);
    });
  });
}

// One listing reads a file once (sort and filter ask again): each read of sysfs costs a
// fifth of a millisecond under emulation, and a listing makes a hundred or more.
function withReads<T>(list: () => T): T {
  read.clear();
  try {
    return list();
  } finally {
    read.clear();
  }
}

// lsblk leaves out RAM disks (major 1), hidden devices (the per-path nodes of NVMe
// multipath) and loop devices without a backing file.
function listed(name: string): boolean {
  if (devnoAttr(name).startsWith("1:")) return false;
  if (attr(`/sys/block/${name}/hidden`) === "1") return false;
  if (/^loop\d+$/.test(name)) return attr(`/sys/block/${name}/loop/backing_file`) !== null;
  return true;
}

// lsblk sorts by device number since /sys stopped listing in order (Linux 4.8).
function byDevno(a: string, b: string): number {
  const [am = 0, an = 0] = devnoAttr(a).split(":").map(Number);
  const [bm = 0, bn = 0] = devnoAttr(b).split(":").map(Number);
  return am - bm || an - bn;
}

/** "MAJ:MIN" as sysfs gives it for the block device `name`; "" when it does not. */
function devnoAttr(name: string): string {
  return attr(`/sys/class/block/${name}/dev`) ?? "";
}

/** The kernel name of the block device node at `path`, through its device number. */
function nameOf(path: string): string | null {
  const devno = devnoOf(path);
  return devno === null ? null : basename(realpathSync.native(`/sys/dev/block/${devno}`));
}

/** "MAJ:MIN" of the block device node at `path`; null for anything else. */
function devnoOf(path: string): string | null {
  const st = orNull(() => statSync(path));
  if (!st?.isBlockDevice()) return null;
  // glibc's dev_t: the minor's low byte, the major's 12 bits, the minor's next 12 bits.
  const major = Math.floor(st.rdev / 0x100) & 0xfff;
  const minor = (st.rdev & 0xff) | ((Math.floor(st.rdev / 0x100000) & 0xfff) << 8);
  return `${major}:${minor}`;
}

interface Use {
  /** Mount points by device number ("8:1") and by source path, in mountinfo's order. */
  readonly mounts: readonly {
    readonly devno: string;
    readonly source: string;
    readonly at: string;
  }[];
  /** Device numbers of active swap devices. */
  readonly swaps: ReadonlySet<string>;
  /** Whether udev keeps a database (not on the stick). */
  readonly udev: boolean;
}

function device(name: string, use: Use): BlockDevice {
  const dir = realpathSync.native(`/sys/class/block/${name}`);
  const partition = attr(`${dir}/partition`) !== null;
  const whole = partition ? dirname(dir) : dir;
  const devno = devnoAttr(name);
  const udev = use.udev ? udevProperties(devno) : new Map<string, string>();
  const stacked = names(`${dir}/slaves`).length > 0;
  const path = devicePath(name, dir);
  const mountpoints = [
    ...use.mounts.filter((m) => m.devno === devno || m.source === path).map((m) => m.at),
    ...(use.swaps.has(devno) ? ["[SWAP]"] : []),
  ];
  // Model and serial only for a whole device that stacks on nothing (lsblk.c, COL_MODEL).
  const own = !partition && !stacked;
  const model = own
    ? (decoded(udev.get("ID_MODEL_ENC")) ?? udev.get("ID_MODEL") ?? attr(`${dir}/device/model`))
    : null;
  // Where udev knows nothing of the disk (the stick), lsblk shows no WWN and a serial only
  // from device/serial (NVMe): the disk's own sysfs files give what udev would have.
  const sysfs = own && udev.size === 0 ? readSysfsIdentity(dir) : {};
  const serial = own
    ? (spaced(
        udev.get("SCSI_IDENT_SERIAL") ??
          udev.get("ID_SCSI_SERIAL") ??
          udev.get("ID_SERIAL_SHORT") ??
          udev.get("ID_SERIAL"),
      ) ??
      attr(`${dir}/device/serial`) ??
      sysfs.serial)
    : null;
  const wwn = udev.get("ID_WWN_WITH_EXTENSION") ?? udev.get("ID_WWN") ?? sysfs.wwn;
  const transport = partition ? null : transportOf(name, dir);
  // Partitions are the folders named after their disk (sda1, nvme0n1p1) that say so.
  const partitions = partition
    ? []
    : (orNull(() => readdirSync(dir, { withFileTypes: true })) ?? [])
        .filter((e) => e.isDirectory() && e.name.startsWith(name))
        .map((e) => e.name)
        .filter((n) => attr(`${dir}/${n}/partition`) !== null)
        .sort(byDevno);
  const holders = names(`${dir}/holders`).sort(byDevno);
  return {
    name,
    path,
    type: partition ? "part" : typeOf(name, dir),
    size: Number(attr(`${dir}/size`) ?? 0) * 512, // 512-byte units whatever the sector size
    readOnly: attr(`${dir}/ro`) === "1",
    // A partition is removable when its disk is (lsblk.c, is_removable_device).
    removable: attr(`${whole}/removable`) === "1",
    rotational: attr(`${whole}/queue/rotational`) === "1",
    ...(transport ? { transport } : {}),
    ...(model ? { model: model.trim() } : {}),
    ...(serial ? { serial: serial.trim() } : {}),
    ...(wwn ? { wwn } : {}),
    logicalSectorSize: Number(attr(`${whole}/queue/logical_block_size`) ?? 512),
    physicalSectorSize: Number(attr(`${whole}/queue/physical_block_size`) ?? 512),
    mountpoints,
    ...(udev.get("ID_FS_TYPE") ? { fstype: udev.get("ID_FS_TYPE") } : {}),
    ...(udev.get("ID_PART_ENTRY_UUID") ? { partuuid: udev.get("ID_PART_ENTRY_UUID") } : {}),
    ...(udev.get("ID_PART_ENTRY_NAME")
      ? { partlabel: decoded(udev.get("ID_PART_ENTRY_NAME")) }
      : {}),
    children: [...partitions, ...holders].map((n) => device(n, use)),
  };
}

// A device-mapper device is named by its mapping, as lsblk's PATH column names it.
function devicePath(name: string, dir: string): string {
  const mapped = /^dm-\d+$/.test(name) ? attr(`${dir}/dm/name`) : null;
  return mapped ? `/dev/mapper/${mapped}` : `/dev/${name}`;
}

// lsblk.c get_type: dm by the owner its UUID names (LVM, CRYPT, MPATH, ...), md by its
// RAID level, SCSI devices by their peripheral type, anything else a disk.
function typeOf(name: string, dir: string): string {
  if (/^dm-\d+$/.test(name)) {
    const prefix = attr(`${dir}/dm/uuid`)?.split("-")[0];
    if (!prefix) return "dm";
    return (/^part/i.test(prefix) ? prefix.slice(0, 4) : prefix).toLowerCase();
  }
  if (name.startsWith("loop")) return "loop";
  if (name.startsWith("md")) return (attr(`${dir}/md/level`) || "md").toLowerCase();
  const scsi = attr(`${dir}/device/type`);
  return (scsi !== null && SCSI_TYPES[Number(scsi)]) || "disk";
}

// lib/blkdev.c blkdev_scsi_type_to_name.
const SCSI_TYPES: Readonly<Record<number, string>> = {
  0: "disk",
  1: "tape",
  2: "printer",
  3: "processor",
  4: "worm",
  5: "rom",
  6: "scanner",
  7: "mo-disk",
  8: "changer",
  9: "comm",
  12: "raid",
  13: "enclosure",
  14: "rbc",
  17: "osd",
  127: "no-lun",
};

// lsblk.c get_transport (2.38), after lsscsi: the SCSI host's class says spi, fc, sas or
// iscsi; a SCSI device under USB is usb; a plain SCSI host is sata or ata by its driver's
// name; NVMe by the device's name. Anything else has none (2.38 names no virtio or mmc).
function transportOf(name: string, dir: string): string | null {
  const hctl = linkName(`${dir}/device`);
  const [host] = /^\d+:\d+:\d+:\d+$/.test(hctl ?? "") ? (hctl as string).split(":") : [];
  if (host === undefined) return name.startsWith("nvme") ? "nvme" : null;
  const hostIs = (type: string) => isDir(`/sys/class/${type}_host/host${host}`);
  const hostAttr = (type: string, a: string) => attr(`/sys/class/${type}_host/host${host}/${a}`);
  const scsiDevice = `/sys/bus/scsi/devices/${hctl}`;
  if (hostIs("spi")) return "spi";
  if (hostIs("fc")) {
    const symbolic = hostAttr("fc", "symbolic_name");
    return symbolic === null ? null : symbolic.includes(" over ") ? "fcoe" : "fc";
  }
  if (hostIs("sas") || exists(`${scsiDevice}/sas_device`)) return "sas";
  if (exists(`${scsiDevice}/ieee1394_id`)) return "sbp";
  if (hostIs("iscsi")) return "iscsi";
  if ((orNull(() => readlinkSync(scsiDevice)) ?? "").includes("usb")) return "usb";
  if (hostIs("scsi")) {
    const driver = hostAttr("scsi", "proc_name");
    if (driver === null) return null;
    if (driver.startsWith("ahci") || driver.startsWith("sata")) return "sata";
    return driver.includes("ata") ? "ata" : null;
  }
  return name.startsWith("nvme") ? "nvme" : null;
}

// Loop, zram, dm and md devices have no device below them, and nothing to read.
function readSysfsIdentity(dir: string): DiskIdentity {
  if (!exists(`${dir}/device`)) return {};
  return sysfsIdentity({
    text: (file) => attr(`${dir}/${file}`),
    bytes: (file) => orNull(() => readFileSync(`${dir}/${file}`)),
  });
}

// udev's database entry of a block device (/run/udev/data/bMAJ:MIN): what lsblk asks
// libudev for. The stick runs no udev, and there it is empty.
function udevProperties(devno: string): Map<string, string> {
  return parseUdevEntry(orNull(() => readFileSync(`/run/udev/data/b${devno}`, "utf8")) ?? "");
}

/** The properties ("E:KEY=VALUE" lines) of a udev database entry; empty values left out. */
export function parseUdevEntry(text: string): Map<string, string> {
  const properties = new Map<string, string>();
  for (const line of text.split("\n")) {
    const m = /^E:([^=]+)=(.*)$/.exec(line);
    if (m?.[1] && m[2] !== undefined && m[2] !== "") properties.set(m[1], m[2]);
  }
  return properties;
}

/** A udev value whose unsafe bytes are written \xHH (ID_MODEL_ENC), blanks normalized. */
export function decoded(value: string | undefined): string | undefined {
  if (value === undefined) return undefined;
  const bytes = Buffer.from(
    value.replace(/\\x([0-9a-fA-F]{2})/g, (_, h: string) =>
      String.fromCharCode(Number.parseInt(h, 16)),
    ),
    "latin1",
  );
  return spaced(bytes.toString("utf8"));
}

// lsblk's normalize_whitespace: runs of blanks as one space, none at either end.
function spaced(value: string | undefined): string | undefined {
  const text = value?.replace(/\s+/g, " ").trim();
  return text ? text : undefined;
}

/** What holds block devices: mounts (mountinfo) and active swap (/proc/swaps). */
function readUse(): Use {
  const mountinfo = orNull(() => readFileSync("/proc/self/mountinfo", "utf8")) ?? "";
  const mounts: { devno: string; source: string; at: string }[] = [];
  // "ID PARENT MAJ:MIN ROOT MOUNTPOINT OPTIONS [TAGS...] - FSTYPE SOURCE SUPER": lsblk
  // walks it backwards, the latest mount first.
  for (const line of mountinfo.split("\n").reverse()) {
    const fields = line.split(" ");
    const dash = fields.indexOf("-");
    const [devno, at, source] = [fields[2], fields[4], fields[dash + 2]];
    if (dash < 6 || devno === undefined || at === undefined) continue;
    mounts.push({ devno, source: unescaped(source ?? ""), at: unescaped(at) });
  }
  const swapsText = orNull(() => readFileSync("/proc/swaps", "utf8")) ?? "";
  const swaps = new Set<string>();
  for (const line of swapsText.split("\n").slice(1)) {
    const [file, kind] = line.split(/\s+/);
    if (!file || kind !== "partition") continue;
    const devno = devnoOf(unescaped(file));
    if (devno !== null) swaps.add(devno);
  }
  return { mounts, swaps, udev: isDir("/run/udev/data") };
}

// mountinfo and /proc/swaps write space, tab, newline and backslash as octal escapes.
function unescaped(text: string): string {
  return text.replace(/\\([0-7]{3})/g, (_, o: string) =>
    String.fromCharCode(Number.parseInt(o, 8)),
  );
}

// Synchronous reads: sysfs answers from memory; each read through the thread pool cost a
// millisecond under emulation (hardware/sysfs.ts).
const read = new Map<string, string | null>();

function attr(path: string): string | null {
  const known = read.get(path);
  if (known !== undefined) return known;
  const value = orNull(() => readFileSync(path, "utf8"))?.trim() ?? null;
  read.set(path, value);
  return value;
}

function names(dir: string): string[] {
  return orNull(() => readdirSync(dir)) ?? [];
}

function linkName(path: string): string | null {
  const target = orNull(() => readlinkSync(path));
  return target === null ? null : basename(target);
}

function exists(path: string): boolean {
  return statSync(path, { throwIfNoEntry: false }) !== undefined;
}

function isDir(path: string): boolean {
  return statSync(path, { throwIfNoEntry: false })?.isDirectory() ?? false;
}
