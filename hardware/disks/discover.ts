// Finds the disks: every disk of the machine (sysfs, as lsblk lists them), or the block
// devices and image files named on the command line. Reads no disk contents but the GPT
// that says which disk the machine booted from.
import { readFileSync } from "node:fs";
import { access, constants, open, readdir, readFile, realpath, stat } from "node:fs/promises";
import { basename } from "node:path";
import { usageError } from "../../common/errors.ts";
import { orNull } from "../../common/or-null.ts";
import { LOADER_GUID } from "../../formats/boot-interface.ts";
import { type Gpt, parseGpt } from "../../formats/gpt.ts";
import type { BlockDevice } from "../../tools/lsblk.ts";
import { waitForStickDrivers } from "../stick-drivers.ts";
import { readBlockDevices, readBlockDevicesAt } from "./block-devices.ts";
import { Budget, DEVICE_BUDGET_MS } from "./probe-budget.ts";
import type { DiskFacts } from "./types.ts";

// LoaderDevicePartUUID names the partition systemd-boot came from.
const LOADER_PART_UUID_VAR = `/sys/firmware/efi/efivars/LoaderDevicePartUUID-${LOADER_GUID}`;

/**
 * The modules a block device's driver chain needs that the release cannot load at boot: the
 * hardware report's boot-path verdict (hwreport/). Without one, no disk misses a module.
 */
export type MissingDrivers = (disk: DiskFacts) => readonly string[];

/** Every disk of the machine, or exactly `paths` (block devices and image files) when given. */
export async function discoverDisks(
  paths: readonly string[],
  missingDrivers?: MissingDrivers,
  fileSectorSize?: number,
): Promise<DiskFacts[]> {
  const facts = await discoverFacts(paths, fileSectorSize);
  if (!missingDrivers) return facts;
  return facts.map((f) => (f.kind === "block" ? { ...f, missingModules: missingDrivers(f) } : f));
}

async function discoverFacts(
  paths: readonly string[],
  fileSectorSize: number | undefined,
): Promise<DiskFacts[]> {
  // A disk named on the command line may sit behind a controller whose driver is loading.
  await waitForStickDrivers();
  const bootPartUuid = await findBootPartUuid();
  if (paths.length === 0) {
    const devices = readBlockDevices((name) => /^(loop|sr)\d+$/.test(name));
    // Loop devices and optical drives are not the machine's disks; name them to use them.
    const disks = devices.filter((d) => d.type !== "loop" && d.type !== "rom");
    return Promise.all(disks.map((d) => blockFacts(d, bootPartUuid)));
  }
  await requireDistinctDisks(paths);
  return Promise.all(paths.map((p) => pathFacts(p, bootPartUuid, fileSectorSize)));
}

// Two paths of one disk (a symbolic link and its target, /dev/sdb and its /dev/disk/by-id
// name) would be planned as two disks and written twice over.
async function requireDistinctDisks(paths: readonly string[]): Promise<void> {
  const seen = new Map<string, string>();
  for (const path of paths) {
    // A path that cannot be stat'ed is not compared: pathFacts names why it is missing.
    const info = await stat(path, { bigint: true }).catch(() => undefined);
    if (!info) continue; // pathFacts says it does not exist
    const key = info.isBlockDevice() ? `block ${info.rdev}` : `file ${info.dev}:${info.ino}`;
    const first = seen.get(key);
    if (first !== undefined) {
      throw usageError(
        first === path ? `${path} is named twice` : `${first} and ${path} are the same disk`,
        "name each disk once",
      );
    }
    seen.set(key, path);
  }
}

async function pathFacts(
  path: string,
  bootPartUuid: string | undefined,
  fileSectorSize: number | undefined,
): Promise<DiskFacts> {
  const info = await stat(path).catch(() => {
    throw usageError(`${path} does not exist`, "name a block device or an image file");
  });
  if (info.isFile()) return fileFacts(path, info.size, info.mode, fileSectorSize);
  if (!info.isBlockDevice()) {
    throw usageError(
      `${path} is neither a block device nor an image file`,
      "name a block device or an image file",
    );
  }
  const [device] = readBlockDevicesAt([path]);
  if (!device)
    throw usageError(
      `the kernel lists no block device at ${path}`,
      "name a disk the kernel knows (see liken-stick disks) or an image file",
    );
  return blockFacts(device, bootPartUuid);
}

// An image file has no sector size of its own: the one it was told (`--sector-size`), else
// the one its GPT was written in, so that a 4Kn layout made in a file reads back as one.
async function fileFacts(
  path: string,
  size: number,
  mode: number,
  told: number | undefined,
): Promise<DiskFacts> {
  // A mode without the owner's write bit is the owner's word that the file is read-only,
  // for everyone: access(W_OK) says yes to root whatever the mode, so it alone would let
  // root write a file its owner protected. access() still answers for the rest (another
  // user's file, a read-only filesystem).
  const ownerMayWrite = (mode & 0o200) !== 0;
  const writable =
    ownerMayWrite &&
    (await access(path, constants.W_OK).then(
      () => true,
      // The refusal is the answer: this user may not write the file.
      () => false,
    ));
  const sectorSize = told ?? (await gptOf(path))?.sectorSize ?? 512;
  return {
    path,
    name: basename(path),
    kind: "file",
    deviceType: "file",
    size,
    logicalSectorSize: sectorSize,
    physicalSectorSize: sectorSize,
    rotational: false,
    readOnly: !writable,
    removable: false,
    // A loop device over the file may be mounted: writing the file under it would corrupt it.
    holders: await loopDevicesBackedBy(path),
    mounts: [],
    swap: false,
    partitions: [],
    bootMedium: false,
    missingModules: [],
  };
}

async function blockFacts(d: BlockDevice, bootPartUuid: string | undefined): Promise<DiskFacts> {
  const family = [d, ...descendants(d)];
  const mountpoints = family.flatMap((x) => x.mountpoints);
  // The devices stacked on the disk or on one of its partitions (their holders): the
  // children that are not partitions.
  const parts = d.children.filter((c) => c.type === "part");
  const holders = new Set(
    [d, ...parts].flatMap((x) => x.children.filter((c) => c.type !== "part").map((c) => c.name)),
  );
  const partitions = parts.map((c) => ({ path: c.path, start: partitionStart(c.name) }));
  return {
    path: d.path,
    name: d.name,
    kind: "block",
    deviceType: d.name.startsWith("zram") ? "zram" : d.type,
    size: d.size,
    logicalSectorSize: d.logicalSectorSize,
    physicalSectorSize: d.physicalSectorSize,
    rotational: d.rotational,
    readOnly: d.readOnly,
    removable: d.removable,
    ...(d.transport ? { transport: d.transport } : {}),
    ...(d.model ? { model: d.model } : {}),
    ...(d.serial ? { serial: d.serial } : {}),
    ...(d.wwn ? { wwn: d.wwn } : {}),
    holders: [...holders].sort(),
    mounts: mountpoints.filter((m) => m !== "[SWAP]"),
    swap: mountpoints.includes("[SWAP]"),
    partitions,
    bootMedium:
      bootPartUuid !== undefined &&
      (family.some((x) => x.partuuid?.toLowerCase() === bootPartUuid) ||
        (family.every((x) => !x.partuuid) && (await gptHolds(d.path, bootPartUuid)))),
    missingModules: [],
  };
}

function descendants(d: BlockDevice): BlockDevice[] {
  return d.children.flatMap((c) => [c, ...descendants(c)]);
}

function partitionStart(name: string): number {
  const sectors = orNull(() => readFileSync(`/sys/class/block/${name}/start`, "utf8")) ?? "0";
  return Number(sectors.trim()) * 512; // sysfs counts 512-byte units whatever the sector size
}

async function loopDevicesBackedBy(path: string): Promise<string[]> {
  const target = await realpath(path);
  // No /sys/block (a container, a workstation without sysfs): no loop device holds the file.
  const loops = (await readdir("/sys/block").catch(() => [])).filter((n) => n.startsWith("loop"));
  const backed = await Promise.all(
    loops.map(async (loop) => {
      // A loop device with no backing file (detached meanwhile) is backed by nothing.
      const file = await readFile(`/sys/block/${loop}/loop/backing_file`, "utf8").catch(() => "");
      return file.trim() === target ? loop : undefined;
    }),
  );
  return backed.filter((l): l is string => l !== undefined);
}

// Without udev (the stick) no PARTUUID is known: the disk's own GPT says whether it
// holds the partition the firmware booted from.
// A disk that does not answer within a device's probe budget is not the one the machine
// just booted from; discovery must not wait on it (docs/disks.md, "Untrusted bytes").
async function gptHolds(path: string, partUuid: string): Promise<boolean> {
  const gpt = await new Budget(DEVICE_BUDGET_MS).within(gptOf(path));
  if (gpt === "timeout") return false;
  return gpt?.entries.some((e) => e.uuid.toLowerCase() === partUuid) ?? false;
}

/** The primary GPT at the head of `path`, in 512- or 4096-byte sectors; undefined if none verifies. */
async function gptOf(path: string): Promise<Gpt | undefined> {
  // A disk that cannot be opened holds no GPT this can read; the probe names why.
  const handle = await open(path, "r").catch(() => undefined);
  if (!handle) return undefined;
  try {
    const head = Buffer.alloc(64 * 1024);
    const { bytesRead } = await handle.read(head, 0, head.length, 0);
    return parseGpt(head.subarray(0, bytesRead));
  } catch {
    // A read that fails is a disk whose GPT is unknown here; the probe reads it again and says.
    return undefined;
  } finally {
    await handle.close();
  }
}

/** The PARTUUID of the partition the running system booted from, lower case, if firmware says. */
async function findBootPartUuid(): Promise<string | undefined> {
  // Not booted by systemd-boot, or no efivarfs: the firmware says nothing of the boot partition.
  const raw = await readFile(LOADER_PART_UUID_VAR).catch(() => undefined);
  if (!raw || raw.length <= 4) return undefined;
  // efivarfs: 4 bytes of attributes, then the value (UTF-16LE, NUL-terminated)
  return raw.subarray(4).toString("utf16le").replace(/\0+$/, "").trim().toLowerCase() || undefined;
}
