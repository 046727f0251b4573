// What the boot agent reads from and says to the machine it runs on: the consoles, the
// kernel log, the command line, systemd-boot's variables, what the initramfs left, the
// verified root, the disks' partitions (read from their GPTs, so no tool guesses), and the
// watchdog.
import { closeSync, constants, openSync, writeSync } from "node:fs";
import { open, readdir, readFile, unlink } from "node:fs/promises";
import { SERIAL_CONSOLES } from "../common/arch.ts";
import { partitionLabel, type SystemPartitionName } from "../common/partition-labels.ts";
import { MIB } from "../common/size.ts";
import {
  LOADER_GUID,
  TRIAL_FAILURE_VARIABLE,
  VERITY_DM_NAME,
  VERITY_DM_UUID_PREFIX,
} from "../formats/boot-interface.ts";
import { parseGpt } from "../formats/gpt.ts";
import { syncAll, umount } from "../tools/mount.ts";
import { rebootNow } from "../tools/reboot.ts";
import { ESP, PEER_ESP, PEER_STATE, STATE, UPDATE } from "./state-files.ts";
import type { InitramfsFailure, Slot } from "./types.ts";

const CONSOLES = ["/dev/tty0", ...SERIAL_CONSOLES.map((c) => `/dev/${c}`)];

// Write-only and never created: "w" would leave a regular file where a device is absent
// (ttyAMA0 on a PC, ttyS0 on some Arm servers, /dev/watchdog without one), which the next
// opener then takes for the device (the recovery prompt's tty failed on that file).
const DEVICE_WRITE = constants.O_WRONLY | constants.O_NOCTTY;

/** One line on every console (docs/design.md section 2): the tests read the serial one. */
export function say(line: string): void {
  for (const path of CONSOLES) {
    try {
      const fd = openSync(path, DEVICE_WRITE);
      try {
        writeSync(fd, `${line}\r\n`);
      } finally {
        closeSync(fd);
      }
    } catch {
      // a console that is not there
    }
  }
}

/** One step of the boot on the consoles: `liken: <what>`. */
export function step(line: string): void {
  say(`liken: ${line}`);
}

/** A line in the kernel's log: it reaches pstore, so a crash record names the boot it ended. */
export function kmsg(line: string): void {
  try {
    const fd = openSync("/dev/kmsg", DEVICE_WRITE);
    try {
      writeSync(fd, `${line}\n`);
    } finally {
      closeSync(fd);
    }
  } catch {
    // no /dev/kmsg: the record will not name its boot
  }
}

export async function kernelCommandLine(): Promise<Map<string, string>> {
  const words = (await readFile("/proc/cmdline", "utf8")).trim().split(/\s+/);
  return new Map(words.map((w) => [w.split("=")[0] as string, w.slice(w.indexOf("=") + 1)]));
}

export async function bootId(): Promise<string> {
  return (await readFile("/proc/sys/kernel/random/boot_id", "utf8")).trim();
}

/** A systemd-boot variable as text, or null: 4 bytes of attributes, then NUL-terminated UTF-16LE. */
export async function loaderVariable(name: string): Promise<string | null> {
  // No variable (no EFI, or systemd-boot did not set it) reads as null.
  const raw = await readFile(`/sys/firmware/efi/efivars/${name}-${LOADER_GUID}`).catch(() => null);
  if (!raw || raw.length < 4) return null;
  const text = raw.subarray(4).toString("utf16le").replace(/\0+$/, "");
  return text === "" ? null : text;
}

const EFIVARS = "/sys/firmware/efi/efivars";

/** Reads and removes the initramfs's failure variable: it is recorded once. */
export async function takeInitramfsFailure(): Promise<InitramfsFailure | null> {
  const path = `${EFIVARS}/${TRIAL_FAILURE_VARIABLE}`;
  // No failure variable: the initramfs recorded nothing.
  const raw = await readFile(path).catch(() => null);
  if (!raw) return null;
  // A variable efivarfs will not remove is read again next boot; this boot's record is made anyway.
  await unlink(path).catch(() => undefined);
  // BOOTID VERSION SLOT REASON (the boot id is for a person reading the variable)
  const match = /^\S+ (\S+) ([ab]) (.*)$/s.exec(raw.subarray(4).toString("utf8").trim());
  if (!match) return null;
  const [, version, slot, message] = match as unknown as [string, string, Slot, string];
  return { version, slot, message };
}

/** The root as the initramfs mounted it: the verity mapping / runs from, its root hash, and the partition under it. */
export interface VerifiedRoot {
  readonly device: string;
  readonly rootHash: string;
  /** The partition the mapping reads (`/dev/vda2`): the slot, if all is well. */
  readonly from: string;
}

/** The verity mapping that / is mounted from, or null when / is anything else. */
export async function verifiedRoot(): Promise<VerifiedRoot | null> {
  // Without mountinfo no mapping is found: / is reported as not verified.
  const mountinfo = await readFile("/proc/self/mountinfo", "utf8").catch(() => "");
  // fields: id parent major:minor root mountpoint ...
  const rootDev = mountinfo
    .split("\n")
    .map((l) => l.split(" "))
    .find((f) => f[4] === "/")?.[2];
  // No /sys/block lists no mapping: / is reported as not verified.
  for (const name of await readdir("/sys/block").catch(() => [] as string[])) {
    if (!name.startsWith("dm-")) continue;
    const read = (f: string) =>
      // A sysfs file that cannot be read matches nothing: that mapping is not /.
      readFile(`/sys/block/${name}/${f}`, "utf8").then(
        (t) => t.trim(),
        () => "",
      );
    if ((await read("dm/name")) !== VERITY_DM_NAME || (await read("dev")) !== rootDev) continue;
    const uuid = await read("dm/uuid");
    // No slaves folder names no partition under the mapping: / counts as not verified.
    const [slave] = await readdir(`/sys/block/${name}/slaves`).catch(() => [] as string[]);
    if (!uuid.startsWith(VERITY_DM_UUID_PREFIX) || !slave) return null;
    return {
      device: `/dev/${name}`,
      rootHash: uuid.slice(VERITY_DM_UUID_PREFIX.length),
      from: `/dev/${slave}`,
    };
  }
  return null;
}

export interface Partition {
  readonly device: string;
  readonly disk: string;
  readonly label: string;
  readonly partUuid: string;
  readonly size: number;
}

/**
 * Every GPT partition of every disk, with its /dev node; the disks `known` holds partitions
 * of (read earlier in this boot) are not read again.
 */
export async function partitions(known: readonly Partition[] = []): Promise<Partition[]> {
  const found = [...known];
  const read = new Set(known.map((p) => p.disk));
  // No /sys/block lists no disks: identify() then holds the boot with its own reason.
  for (const disk of await readdir("/sys/block").catch(() => [] as string[])) {
    if (/^(loop|ram|zram|dm-|md|sr)/.test(disk) || read.has(disk)) continue;
    const head = Buffer.alloc(MIB);
    try {
      const handle = await open(`/dev/${disk}`, "r");
      try {
        await handle.read(head, 0, head.length, 0);
      } finally {
        await handle.close();
      }
    } catch {
      // A disk that cannot be opened or read (a gone device) holds none of our partitions.
      continue;
    }
    const gpt = parseGpt(head);
    if (!gpt) continue;
    const nodes = await partitionNodes(disk);
    for (const e of gpt.entries) {
      const device = nodes.get(e.number);
      if (device)
        found.push({
          device: `/dev/${device}`,
          disk,
          label: e.name,
          partUuid: e.uuid.toLowerCase(),
          size: e.size,
        });
    }
  }
  return found;
}

// /sys/block/vda/vda3/partition holds 3: the kernel's names for a disk's partitions.
async function partitionNodes(disk: string): Promise<Map<number, string>> {
  const nodes = new Map<number, string>();
  // A disk without a sysfs folder has no partitions the kernel named.
  for (const name of await readdir(`/sys/block/${disk}`).catch(() => [] as string[])) {
    if (!name.startsWith(disk)) continue;
    // A child that is no partition (queue, holders) has no partition file.
    const n = await readFile(`/sys/block/${disk}/${name}/partition`, "utf8").catch(() => "");
    if (n.trim() !== "") nodes.set(Number(n.trim()), name);
  }
  return nodes;
}

/** The liken partitions of the disk that holds the booted slot (root=PARTUUID=). */
export function bootDisk(all: readonly Partition[], rootPartUuid: string) {
  const root = all.find((p) => p.partUuid === rootPartUuid.toLowerCase());
  if (!root) return undefined;
  const on = (label: string) => all.find((p) => p.disk === root.disk && p.label === label);
  const system = (name: SystemPartitionName) => on(partitionLabel(name));
  const slots: Record<Slot, Partition | undefined> = { a: system("a"), b: system("b") };
  return { esp: system("esp"), state: system("state"), journal: system("journal"), slots };
}

/**
 * The watchdog held open for a trial: a hang stops the pings and the watchdog resets the
 * machine. A magic close ("V") disarms it once the trial is over.
 */
export class Watchdog {
  readonly #fd: number;
  readonly #timer: NodeJS.Timeout;
  private constructor(fd: number, identity: string) {
    this.#fd = fd;
    this.identity = identity;
    this.#timer = setInterval(() => this.#ping(), 2000);
  }

  /** The watchdog as the kernel names it (`i6300ESB timer`, `Software Watchdog`). */
  readonly identity: string;
  static async arm(device = "/dev/watchdog"): Promise<Watchdog | undefined> {
    let fd: number;
    try {
      fd = openSync(device, DEVICE_WRITE);
    } catch {
      // No watchdog device: the trial runs without one, and the console says so.
      return undefined;
    }
    // The identity only names the watchdog in the status; the device is armed either way.
    const identity = await readFile("/sys/class/watchdog/watchdog0/identity", "utf8").then(
      (t) => t.trim(),
      () => "unknown",
    );
    return new Watchdog(fd, identity);
  }

  #ping(): void {
    try {
      writeSync(this.#fd, "k");
    } catch {
      // the next ping tries again
    }
  }

  disarm(): void {
    clearInterval(this.#timer);
    try {
      writeSync(this.#fd, "V");
      closeSync(this.#fd);
    } catch {
      // already closed
    }
  }
}

/** Writes out and unmounts what the agent mounted, and resets the machine. */
export async function rebootCleanly(): Promise<void> {
  // The reset comes whatever fails here: the umount and the reboot write out what they can.
  await syncAll().catch(() => undefined);
  // A partition that is not mounted (the update medium on most boots, a mirror's other disk
  // on one disk) needs no umount.
  await umount(UPDATE, PEER_STATE, PEER_ESP, STATE, ESP).catch(() => undefined);
  await rebootNow();
  await new Promise((resolve) => setTimeout(resolve, 60_000));
}
