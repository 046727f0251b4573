// A corpus of disks for the blank-disk classifier (docs/disks.md, `disks --json`): every
// kind of data a disk may hold, each written by the tool that owns the format, plus the
// disks that are blank and the ones that are ineligible. Image files are sparse, so the
// whole corpus costs a few tens of MiB on the file system however large the disks claim
// to be. With `loopDevices` (root only) it adds loop devices: mounted, read-only, blank.
//
// Expectations are lower bounds: `reasons` lists what the classifier must say (exactly, or
// as a prefix when the pattern ends in "*"), never everything it may say. Three kinds are
// computed from the bytes once a disk is built, so they are always exact:
// `nonzero-data:head` / `:middle` / `:tail` appear exactly when the first 16 MiB / one of the
// classifier's sample windows / the last MiB of the disk holds a byte that is not zero. The
// regions come from hardware/disks/probe.ts itself, so the corpus reads where `disks` reads.
//
// Besides whole-disk formats, the corpus holds the disks of issue 14: partition tables
// zapped the way `sgdisk --zap-all` leaves them (the first 34 and the last 33 sectors
// zeroed) over intact file systems, crypto, LVM and RAID headers at the usual partition
// starts; a backup GPT alone naming a partition at an unusual start; data between two zero
// ends; and a disk erased with random data.
//
// md RAID superblocks are written here by hand (the host kernel has no md driver, so
// `mdadm --create` cannot run): the layouts and checksums follow mdadm's super0.c and
// super1.c (calc_sb0_csum, calc_sb_1_csum) and libblkid's superblocks/linux_raid.c, and
// `mdadm --examine` accepts them with a correct checksum.
import { createHash } from "node:crypto";
import {
  type FileHandle,
  mkdir,
  open,
  readFile,
  realpath,
  rm,
  stat,
  writeFile,
} from "node:fs/promises";
import { basename, join } from "node:path";
import { mapLimit } from "../../common/map-limit.ts";
import { PARTITION_TYPES } from "../../formats/gpt-types.ts";
import {
  HEAD_BYTES,
  SAMPLE_BYTES,
  samplePositions,
  TAIL_BYTES,
} from "../../hardware/disks/probe.ts";
import { run } from "../../tools/exec.ts";

export type Verdict = "foreign" | "ineligible" | "blank";

export interface CorpusCase {
  /** Unique within a corpus, e.g. "gpt-backup-only". */
  readonly name: string;
  /** An image file, or a /dev/loopN block device. */
  readonly path: string;
  /**
   * The verdict the classifier must give. A list when more than one is right: a disk too
   * small to install on that also holds data may be called `ineligible` or `foreign`
   * (the util-linux images as they are). Read it through `acceptedVerdicts()`.
   */
  readonly expect: Verdict | readonly Verdict[];
  /** Reasons the classifier must give, as exact strings or prefixes ending in "*", e.g. "signature:xfs@*". */
  readonly reasons: readonly string[];
  /** A loop device: only root can open it. */
  readonly needsRoot: boolean;
  /**
   * Where a partition's content lies when no table names it any more (a zapped table, an
   * image placed at 1 MiB): a `signature:TYPE@START` reason that wipefs cannot see (it reads
   * the disk and the kernel's partitions only) is checked with blkid -p over this range.
   */
  readonly placed?: ByteRange;
}

export interface DiskCorpus {
  readonly cases: CorpusCase[];
  /** Unmounts what the build mounted and detaches every loop device it attached. Idempotent. */
  cleanup(): Promise<void>;
}

export const KiB = 1024;
export const MiB = 1024 * KiB;
export const GiB = 1024 * MiB;
/** The classifier's threshold: a disk below this is `too-small`. */
export const MIN_DISK_BYTES = 512 * MiB;
/** The apparent size of the corpus's ordinary disks: above the threshold, sparse. */
export const DISK_BYTES = 600 * MiB;

/**
 * What blkid's low-level probe finds at `offset` of a disk, over `size` bytes (the rest of
 * the disk when not given): TYPE, or PTTYPE for a partition table; undefined for nothing.
 */
export async function blkidTypeAt(
  path: string,
  offset: number,
  size?: number,
): Promise<string | undefined> {
  const { stdout, exitCode } = await run(
    "blkid",
    [
      "--probe",
      "--output",
      "export",
      "--offset",
      String(offset),
      ...(size === undefined ? [] : ["--size", String(size)]),
      path,
    ],
    { okExitCodes: [2] },
  );
  if (exitCode === 2) return undefined;
  const field = (name: string) => new RegExp(`^${name}=(.*)$`, "m").exec(stdout)?.[1];
  return field("TYPE") ?? field("PTTYPE");
}

/** The verdicts a case accepts. */
export function acceptedVerdicts(c: Pick<CorpusCase, "expect">): readonly Verdict[] {
  return typeof c.expect === "string" ? [c.expect] : c.expect;
}

/** Whether a reason the classifier gave satisfies an expected one (exact, or prefix + "*"). */
export function reasonMatches(expected: string, actual: string): boolean {
  return expected.endsWith("*") ? actual.startsWith(expected.slice(0, -1)) : actual === expected;
}

/** An offset the way wipefs prints it: "0x438". */
export function hexOffset(n: number): string {
  return `0x${n.toString(16)}`;
}

const isRoot = (): boolean => process.getuid?.() === 0;

// ---------------------------------------------------------------------------------------
// Bytes

async function sparseFile(path: string, size: number): Promise<void> {
  const fh = await open(path, "w");
  try {
    await fh.truncate(size);
  } finally {
    await fh.close();
  }
}

async function writeAt(path: string, offset: number, data: Uint8Array): Promise<void> {
  const fh = await open(path, "r+");
  try {
    await fh.write(data, 0, data.length, offset);
  } finally {
    await fh.close();
  }
}

async function growTo(path: string, size: number): Promise<void> {
  const fh = await open(path, "r+");
  try {
    if ((await fh.stat()).size > size) throw new Error(`${path} is larger than ${size} bytes`);
    await fh.truncate(size);
  } finally {
    await fh.close();
  }
}

/** Reproducible bytes that are not zero and look like nothing: a SHA-256 counter stream. */
export function patternBytes(seed: string, length: number): Buffer {
  const out = Buffer.alloc(length);
  for (let i = 0, n = 0; i < length; n++) {
    const block = createHash("sha256").update(`${seed}:${n}`).digest();
    i += block.copy(out, i);
  }
  return out;
}

/** Deterministic UUID bytes (16) from a name. */
function uuidBytes(name: string): Buffer {
  return createHash("sha256").update(name).digest().subarray(0, 16);
}

const ZEROS = Buffer.alloc(MiB);

/** Whether a buffer holds only zero bytes (memcmp against zeros, MiB at a time). */
export function isAllZero(b: Buffer): boolean {
  for (let i = 0; i < b.length; i += ZEROS.length) {
    const part = b.subarray(i, Math.min(i + ZEROS.length, b.length));
    if (!part.equals(ZEROS.subarray(0, part.length))) return false;
  }
  return true;
}

/** A byte range of a disk, [start, end). */
export interface ByteRange {
  readonly start: number;
  readonly end: number;
}

/** Where the classifier looks for non-zero bytes on a disk of `size` bytes (probe.ts). */
export interface DataRegions {
  /** The first 16 MiB (the whole disk when smaller). */
  readonly head: ByteRange;
  /** The sample windows between head and tail: none on a disk too small for them. */
  readonly middle: readonly ByteRange[];
  /** The last MiB (the whole disk when smaller). */
  readonly tail: ByteRange;
}

export function dataRegions(size: number): DataRegions {
  return {
    head: { start: 0, end: Math.min(HEAD_BYTES, size) },
    middle: samplePositions(size).map((p) => ({ start: p, end: p + SAMPLE_BYTES })),
    tail: { start: Math.max(0, size - TAIL_BYTES), end: size },
  };
}

export interface NonzeroRegions {
  readonly head: boolean;
  readonly middle: boolean;
  readonly tail: boolean;
}

/**
 * Which regions of a disk hold a non-zero byte, from blocks of it that are known: the
 * builder of a sparse disk feeds every block it writes (each at its offset on the disk),
 * and the rest of the disk is zeros. Exact to the byte, and nothing is read back.
 */
export class NonzeroTracker {
  private readonly regions: DataRegions;
  private found = { head: false, middle: false, tail: false };
  constructor(readonly size: number) {
    this.regions = dataRegions(size);
  }

  add(offset: number, block: Uint8Array): void {
    const hits = (r: ByteRange): boolean => {
      const from = Math.max(r.start, offset);
      const to = Math.min(r.end, offset + block.length);
      return (
        from < to &&
        !isAllZero(Buffer.from(block.buffer, block.byteOffset + from - offset, to - from))
      );
    };
    if (!this.found.head && hits(this.regions.head)) this.found.head = true;
    if (!this.found.tail && hits(this.regions.tail)) this.found.tail = true;
    if (!this.found.middle && this.regions.middle.some(hits)) this.found.middle = true;
  }

  get result(): NonzeroRegions {
    return { ...this.found };
  }
}

/** Which of the regions the classifier reads hold non-zero bytes, read from the disk. */
export async function nonzeroRegions(path: string): Promise<NonzeroRegions & { size: number }> {
  const fh = await open(path, "r");
  try {
    const size = await sizeOfOpen(path, fh);
    const regions = dataRegions(size);
    // A MiB at a time, stopping at the first non-zero byte: a data disk costs one read.
    const buf = Buffer.alloc(MiB);
    const nonzero = async (r: ByteRange): Promise<boolean> => {
      for (let pos = r.start; pos < r.end; ) {
        const want = Math.min(buf.length, r.end - pos);
        const { bytesRead } = await fh.read(buf, 0, want, pos);
        if (bytesRead === 0) throw new Error(`short read of ${path} at ${pos}`);
        if (!isAllZero(buf.subarray(0, bytesRead))) return true;
        pos += bytesRead;
      }
      return false;
    };
    const head = await nonzero(regions.head);
    const tail = await nonzero(regions.tail);
    let middle = false;
    for (const r of regions.middle) if (!middle) middle = await nonzero(r);
    return { head, middle, tail, size };
  } finally {
    await fh.close();
  }
}

/** The `nonzero-data:` reasons a disk's regions call for, in the classifier's order. */
export function nonzeroReasons(n: NonzeroRegions): string[] {
  return [
    ...(n.head ? ["nonzero-data:head"] : []),
    ...(n.middle ? ["nonzero-data:middle"] : []),
    ...(n.tail ? ["nonzero-data:tail"] : []),
  ];
}

async function sizeOfOpen(path: string, fh: FileHandle): Promise<number> {
  const st = await fh.stat();
  if (st.isFile()) return st.size;
  // A block device: its size is in sysfs, in 512-byte sectors.
  const name = path.split("/").pop();
  const sectors = await readFile(`/sys/class/block/${name}/size`, "utf8");
  return Number(sectors.trim()) * 512;
}

/** A disk's size in bytes: a file's length or a block device's capacity. */
export async function diskSize(path: string): Promise<number> {
  const fh = await open(path, "r");
  try {
    return await sizeOfOpen(path, fh);
  } finally {
    await fh.close();
  }
}

// ---------------------------------------------------------------------------------------
// md RAID superblocks (by hand: no md driver here)

const MD_SB_MAGIC = 0xa92b4efc;
const MD_CTIME = 1_700_000_000; // fixed, so the corpus is reproducible

/** Where libblkid looks for a 0.90 superblock: the last 64 KiB-aligned 64 KiB of the disk. */
export function md090Offset(diskBytes: number): number {
  return Math.floor(diskBytes / 0x10000) * 0x10000 - 0x10000;
}

/** Where a 1.x superblock lives: 1.0 at the end (4 KiB aligned, 8 to 12 KiB from it), 1.1 at 0, 1.2 at 4 KiB. */
export function md1Offset(minor: 0 | 1 | 2, diskBytes: number): number {
  if (minor === 0) return Math.floor(diskBytes / 0x1000) * 0x1000 - 0x2000;
  return minor === 1 ? 0 : 0x1000;
}

/**
 * A v0.90 superblock (mdp_super_t, 4096 bytes, host order = little-endian) of a clean
 * two-disk RAID1 whose member this disk is (slot 0). Checksum as mdadm's calc_sb0_csum:
 * the sum of the 1024 32-bit words with sb_csum zero, the carry folded in once.
 */
export function md090Superblock(diskBytes: number, name: string): Buffer {
  const sb = Buffer.alloc(4096);
  const w = (word: number, value: number): void => {
    sb.writeUInt32LE(value >>> 0, word * 4);
  };
  const uuid = uuidBytes(name);
  const offset = md090Offset(diskBytes);
  // generic constant words (0..31)
  w(0, MD_SB_MAGIC);
  w(1, 0); // major_version
  w(2, 90); // minor_version
  w(3, 0); // patch_version
  w(4, 0); // gvalid_words
  w(5, uuid.readUInt32LE(0)); // set_uuid0
  w(6, MD_CTIME); // ctime
  w(7, 1); // level: raid1
  w(8, offset / 1024); // size: KiB used on each member, the data before the superblock
  w(9, 2); // nr_disks
  w(10, 2); // raid_disks
  w(11, 0); // md_minor
  w(12, 0); // not_persistent
  w(13, uuid.readUInt32LE(4)); // set_uuid1
  w(14, uuid.readUInt32LE(8)); // set_uuid2
  w(15, uuid.readUInt32LE(12)); // set_uuid3
  // generic state words (32..63)
  w(32, MD_CTIME); // utime
  w(33, 1); // state: MD_SB_CLEAN
  w(34, 2); // active_disks
  w(35, 2); // working_disks
  w(36, 0); // failed_disks
  w(37, 0); // spare_disks
  // 38: sb_csum, below
  w(39, 1); // events_lo
  w(40, 0); // events_hi
  w(41, 1); // cp_events_lo
  w(42, 0); // cp_events_hi
  w(43, 0); // recovery_cp
  // personality words (64..127): layout 0, chunk_size 0
  // disks[27] at word 128, 32 words each; this_disk at word 992
  const ACTIVE_SYNC = (1 << 1) | (1 << 2); // MD_DISK_ACTIVE | MD_DISK_SYNC
  for (const [number, base] of [
    [0, 128],
    [1, 128 + 32],
  ] as const) {
    w(base + 0, number); // number
    w(base + 1, 7); // major (a loop device, as mdadm would record it)
    w(base + 2, number); // minor
    w(base + 3, number); // raid_disk
    w(base + 4, ACTIVE_SYNC); // state
  }
  sb.copy(sb, 992 * 4, 128 * 4, 128 * 4 + 32 * 4); // this_disk = disks[0]
  let sum = 0n;
  for (let i = 0; i < 1024; i++) sum += BigInt(sb.readUInt32LE(i * 4));
  w(38, Number(((sum & 0xffffffffn) + (sum >> 32n)) & 0xffffffffn));
  return sb;
}

/**
 * A v1.x superblock (struct mdp_superblock_1, little-endian, 256 bytes + 2 bytes per
 * device role) of a clean two-disk RAID1, this disk in slot 0. Checksum as mdadm's and the
 * kernel's calc_sb_1_csum: the 32-bit little-endian words of the first 256 + 2 * max_dev
 * bytes summed with sb_csum zero, the high 32 bits added once to the low 32.
 */
export function md1Superblock(minor: 0 | 1 | 2, diskBytes: number, name: string): Buffer {
  const MAX_DEV = 2;
  const sb = Buffer.alloc(256 + 2 * MAX_DEV);
  const sectors = BigInt(Math.floor(diskBytes / 512));
  const superOffset = BigInt(md1Offset(minor, diskBytes) / 512);
  // 1.0: data from sector 0 up to the superblock; 1.1 / 1.2: data from 1 MiB on.
  const dataOffset = minor === 0 ? 0n : 2048n;
  const dataSize = minor === 0 ? superOffset - 64n : sectors - dataOffset;
  sb.writeUInt32LE(MD_SB_MAGIC, 0); // magic
  sb.writeUInt32LE(1, 4); // major_version
  sb.writeUInt32LE(0, 8); // feature_map
  uuidBytes(name).copy(sb, 16); // set_uuid
  sb.write(`corpus:${name}`.slice(0, 32), 32, "ascii"); // set_name
  sb.writeBigUInt64LE(BigInt(MD_CTIME), 64); // ctime
  sb.writeInt32LE(1, 72); // level: raid1
  sb.writeUInt32LE(0, 76); // layout
  sb.writeBigUInt64LE(dataSize, 80); // size (sectors)
  sb.writeUInt32LE(0, 88); // chunksize
  sb.writeUInt32LE(2, 92); // raid_disks
  sb.writeBigUInt64LE(dataOffset, 128); // data_offset
  sb.writeBigUInt64LE(dataSize, 136); // data_size
  sb.writeBigUInt64LE(superOffset, 144); // super_offset
  sb.writeBigUInt64LE(0n, 152); // recovery_offset
  sb.writeUInt32LE(0, 160); // dev_number
  uuidBytes(`${name}:dev0`).copy(sb, 168); // device_uuid
  sb.writeBigUInt64LE(BigInt(MD_CTIME), 192); // utime
  sb.writeBigUInt64LE(1n, 200); // events
  sb.writeBigUInt64LE(0xffff_ffff_ffff_ffffn, 208); // resync_offset: MaxSector (in sync)
  sb.writeUInt32LE(MAX_DEV, 220); // max_dev
  sb.writeUInt16LE(0, 256); // dev_roles[0]: slot 0 (this disk)
  sb.writeUInt16LE(1, 258); // dev_roles[1]: slot 1 (its mirror)
  let sum = 0n;
  for (let i = 0; i + 4 <= sb.length; i += 4) sum += BigInt(sb.readUInt32LE(i));
  if (sb.length % 4 === 2) sum += BigInt(sb.readUInt16LE(sb.length - 2));
  sb.writeUInt32LE(Number(((sum & 0xffffffffn) + (sum >> 32n)) & 0xffffffffn), 216); // sb_csum
  return sb;
}

// ---------------------------------------------------------------------------------------
// Loop devices and mounts, tracked so that cleanup() can undo all of them

class Tracker {
  readonly loops: string[] = [];
  readonly mounts: string[] = [];
  constructor(readonly dir: string) {}

  async attach(
    file: string,
    opts: { readOnly?: boolean; partscan?: boolean } = {},
  ): Promise<string> {
    const args = ["--find", "--show"];
    if (opts.readOnly) args.push("--read-only");
    if (opts.partscan) args.push("--partscan");
    const { stdout } = await run("losetup", [...args, file]);
    const dev = stdout.trim();
    if (!/^\/dev\/loop\d+$/.test(dev)) throw new Error(`losetup printed ${JSON.stringify(stdout)}`);
    this.loops.push(dev);
    return dev;
  }

  async detach(dev: string): Promise<void> {
    await run("losetup", ["--detach", dev]);
    const i = this.loops.indexOf(dev);
    if (i >= 0) this.loops.splice(i, 1);
  }

  async mount(dev: string, target: string, type: string): Promise<void> {
    await mkdir(target, { recursive: true });
    await run("mount", ["-t", type, dev, target]);
    this.mounts.push(target);
  }

  async cleanup(): Promise<void> {
    const errors: unknown[] = [];
    for (const target of this.mounts.splice(0).reverse()) {
      try {
        await run("umount", [target]);
      } catch {
        try {
          await run("umount", ["--lazy", target]);
        } catch (e) {
          errors.push(e);
        }
      }
    }
    for (const dev of this.loops.splice(0).reverse()) {
      try {
        await run("losetup", ["--detach", dev]);
      } catch (e) {
        errors.push(e);
      }
    }
    // Whatever is still attached to a file of ours (a losetup that attached and then
    // failed, a detach that raced) goes too.
    if (isRoot()) {
      try {
        for (const dev of await loopsBackedBy(this.dir)) {
          try {
            await run("losetup", ["--detach", dev]);
          } catch (e) {
            errors.push(e);
          }
        }
      } catch (e) {
        errors.push(e);
      }
    }
    if (errors.length > 0) throw new AggregateError(errors, "corpus cleanup left something behind");
  }
}

/** The loop devices whose backing file lies in `dir`. */
export async function loopsBackedBy(dir: string): Promise<string[]> {
  const real = await realpath(dir);
  const { stdout } = await run("losetup", ["--list", "--json", "--output", "NAME,BACK-FILE"]);
  if (stdout.trim() === "") return [];
  const parsed = JSON.parse(stdout) as {
    loopdevices?: { name: string; "back-file"?: string | null }[];
  };
  return (parsed.loopdevices ?? [])
    .filter((l) => (l["back-file"] ?? "").startsWith(`${real}/`))
    .map((l) => l.name);
}

/** The kernel here parses no partition tables: add the partitions a table lists with partx. */
async function ensurePartitions(dev: string, count: number): Promise<string[]> {
  const name = dev.split("/").pop()!;
  const parts = Array.from({ length: count }, (_, i) => `${name}p${i + 1}`);
  const present = async (p: string): Promise<boolean> =>
    stat(`/sys/class/block/${name}/${p}`).then(
      () => true,
      () => false,
    );
  if (!(await present(parts[0]!))) await run("partx", ["--add", dev]);
  for (const p of parts) {
    if (!(await present(p))) throw new Error(`${dev}: partition ${p} did not appear`);
    // devtmpfs makes the node; wait for it briefly.
    for (let i = 0; ; i++) {
      if (
        await stat(`/dev/${p}`).then(
          () => true,
          () => false,
        )
      )
        break;
      if (i > 50) throw new Error(`/dev/${p} did not appear`);
      await new Promise((r) => setTimeout(r, 20));
    }
  }
  return parts.map((p) => `/dev/${p}`);
}

// ---------------------------------------------------------------------------------------
// The recipes

interface Recipe {
  readonly name: string;
  readonly expect: Verdict;
  readonly reasons: readonly string[];
  /** Builds the disk at `file`, returns the path the case names (the file, or a loop device). */
  readonly build: (file: string, t: Tracker, dir: string) => Promise<string | undefined>;
  /** Needs root to build (a transient loop device), though the result is a plain file. */
  readonly rootToBuild?: boolean;
  /** The case is a loop device: only with `loopDevices`. */
  readonly loop?: boolean;
  /** Where the content of a partition no table names lies (CorpusCase.placed). */
  readonly placed?: ByteRange;
}

const sfdisk = (target: string, script: string): Promise<unknown> =>
  run("sfdisk", ["--quiet", "--no-reread", "--no-tell-kernel", target], { input: script });

const GPT_LINUX = "0FC63DAF-8483-4772-8E79-3D69D8477DE4";
const LVM_CONFIG =
  "devices { obtain_device_list_from_udev=0 use_devicesfile=0 scan_lvs=0 } " +
  "activation { udev_sync=0 udev_rules=0 monitoring=0 }";

/** A GPT disk with one Linux partition at 1 MiB (xfs wants 300 MiB at least). */
async function gptDisk(file: string, partitionBytes = 400 * MiB): Promise<void> {
  await sparseFile(file, DISK_BYTES);
  await sfdisk(file, `label: gpt\nstart=2048, size=${partitionBytes / 512}, type=${GPT_LINUX}\n`);
}

/**
 * What `sgdisk --zap-all` leaves of a partition table: the first 34 sectors (MBR or PMBR,
 * primary GPT header and entries) and the last 33 (backup entries and header) zeroed, and
 * everything between as it was. With `keepBackup` only the first 34 go: the backup GPT
 * survives, as after a zap interrupted half way or a tool that knows only the primary.
 */
async function zapTable(file: string, opts: { keepBackup?: boolean } = {}): Promise<void> {
  const size = (await stat(file)).size;
  await writeAt(file, 0, Buffer.alloc(34 * 512));
  if (!opts.keepBackup) await writeAt(file, size - 33 * 512, Buffer.alloc(33 * 512));
}

/**
 * A partition's content made by its tool in a file of its own (`bytes` long), then copied
 * into `file` at `offset`: the tools that cannot write at an offset of a file (mkfs.xfs,
 * mkfs.btrfs, mkfs.vfat, mkntfs, mkswap, cryptsetup, pvcreate) still write every byte. Only the non-zero 64 KiB
 * blocks are copied: the range is zeros on the new sparse disk already, and it stays sparse.
 */
async function placePartition(
  file: string,
  offset: number,
  bytes: number,
  make: (part: string) => Promise<void>,
): Promise<void> {
  const part = `${file}.part`;
  await sparseFile(part, bytes);
  try {
    await make(part);
    const src = await open(part, "r");
    const dst = await open(file, "r+");
    try {
      const size = (await src.stat()).size;
      const buf = Buffer.alloc(4 * MiB);
      for (let pos = 0; pos < size; ) {
        const { bytesRead } = await src.read(buf, 0, Math.min(buf.length, size - pos), pos);
        if (bytesRead === 0) throw new Error(`short read of ${part} at ${pos}`);
        for (let at = 0; at < bytesRead; at += 64 * KiB) {
          const block = buf.subarray(at, Math.min(at + 64 * KiB, bytesRead));
          if (!isAllZero(block)) await dst.write(block, 0, block.length, offset + pos + at);
        }
        pos += bytesRead;
      }
    } finally {
      await src.close();
      await dst.close();
    }
  } finally {
    await rm(part, { force: true });
  }
}

/** A folder of a few files (one of them 256 KiB of data) for `mkfs.ext4 -d`. */
async function someFiles(dir: string, name: string): Promise<string> {
  const src = join(dir, `${name}-files`);
  await mkdir(join(src, "home", "user"), { recursive: true });
  await writeFile(join(src, "home", "user", "notes.txt"), `the files of ${name}\n`);
  await writeFile(join(src, "home", "user", "photo.raw"), patternBytes(name, 256 * KiB));
  return src;
}

/** ext4 holding files, written by mkfs.ext4 straight into the disk at `offset`. */
async function ext4At(file: string, dir: string, name: string, offset: number, bytes: number) {
  await run("mkfs.ext4", [
    "-q",
    "-F",
    "-d",
    await someFiles(dir, name),
    "-E",
    `offset=${offset},lazy_itable_init=1,nodiscard`,
    file,
    `${bytes / KiB}k`,
  ]);
}

/**
 * Data everywhere a disk of MIN_DISK_BYTES can hold it: shred(1) overwrites the file with
 * its random stream, as an operator "securely erasing" a disk does.
 */
async function shredded(file: string): Promise<void> {
  await sparseFile(file, MIN_DISK_BYTES);
  await run("shred", ["--iterations=1", file], { timeoutMs: 180_000 });
}

function recipes(): Recipe[] {
  const sectors = DISK_BYTES / 512;
  const plain = (
    name: string,
    reasons: readonly string[],
    build: (file: string, dir: string) => Promise<void>,
  ): Recipe => ({
    name,
    expect: "foreign",
    reasons,
    build: async (file, _t, dir) => {
      await build(file, dir);
      return undefined;
    },
  });
  const mkfs = (name: string, reasons: readonly string[], tool: string, args: readonly string[]) =>
    plain(name, reasons, async (file) => {
      await sparseFile(file, DISK_BYTES);
      await run(tool, [...args, file]);
    });
  const md1 = (minor: 0 | 1 | 2) =>
    plain(
      `mdraid-1.${minor}`,
      [`signature:linux_raid_member@${hexOffset(md1Offset(minor, DISK_BYTES))}`],
      async (file) => {
        await sparseFile(file, DISK_BYTES);
        await writeAt(
          file,
          md1Offset(minor, DISK_BYTES),
          md1Superblock(minor, DISK_BYTES, `mdraid-1.${minor}`),
        );
      },
    );

  // A GPT with one partition at 1 MiB, `make` writing its content (`bytes` of it), then
  // the table zapped: the content sits at 1 MiB of a disk without a table.
  const zappedGpt = (
    name: string,
    type: string,
    bytes: number,
    make: (part: string, dir: string, t: Tracker) => Promise<unknown>,
  ): Recipe => ({
    name: `zapped-gpt-${name}`,
    expect: "foreign",
    reasons: [`signature:${type}@${hexOffset(MiB)}`, "nonzero-data:head"],
    placed: { start: MiB, end: MiB + bytes },
    build: async (file, t, dir) => {
      await gptDisk(file);
      await placePartition(file, MiB, bytes, (part) => make(part, dir, t).then(() => undefined));
      await zapTable(file);
      return undefined;
    },
  });

  // An md member partition of 400 MiB at 1 MiB, the superblock written by hand.
  const zappedMd = (version: 0 | 2 | "0.90"): Recipe => {
    const name = `zapped-gpt-mdraid-${version === "0.90" ? "0.90" : `1.${version}`}`;
    const bytes = 400 * MiB;
    const [offset, superblock] =
      version === "0.90"
        ? [md090Offset(bytes), md090Superblock(bytes, name)]
        : [md1Offset(version, bytes), md1Superblock(version, bytes, name)];
    return {
      name,
      expect: "foreign",
      reasons: [`signature:linux_raid_member@${hexOffset(MiB)}`],
      placed: { start: MiB, end: MiB + bytes },
      build: async (file) => {
        await gptDisk(file, bytes);
        await writeAt(file, MiB + offset, superblock);
        await zapTable(file);
        return undefined;
      },
    };
  };

  return [
    // --- blank and too small
    {
      name: "blank-1g",
      expect: "blank",
      reasons: [],
      build: async (file) => void (await sparseFile(file, GiB)),
    },
    {
      name: "blank-512m",
      expect: "blank",
      reasons: [],
      build: async (file) => void (await sparseFile(file, MIN_DISK_BYTES)),
    },
    {
      name: "too-small-16m",
      expect: "ineligible",
      reasons: ["too-small"],
      build: async (file) => void (await sparseFile(file, 16 * MiB)),
    },

    // --- partition tables
    plain("dos-mbr", ["partition-table:dos", "partitions"], async (file) => {
      await sparseFile(file, DISK_BYTES);
      await sfdisk(file, `label: dos\nstart=2048, size=${(256 * MiB) / 512}, type=83\n`);
    }),
    plain("gpt", ["partition-table:gpt", "partition-table:PMBR", "partitions"], (file) =>
      gptDisk(file),
    ),
    // Sector 0 zeroed: no PMBR. blkid -p and sfdisk see nothing; wipefs (which forces
    // GPT probing) still finds both headers.
    plain("gpt-no-pmbr", ["partition-table:gpt"], async (file) => {
      await gptDisk(file);
      await writeAt(file, 0, Buffer.alloc(512));
    }),
    // The primary header (LBA 1) zeroed, the PMBR kept: the backup header is the table.
    plain(
      "gpt-primary-header-zeroed",
      ["partition-table:gpt", "partition-table:PMBR"],
      async (file) => {
        await gptDisk(file);
        await writeAt(file, 512, Buffer.alloc(512));
      },
    ),
    // LBA 0-33 zeroed (PMBR, primary header, primary entries): only the backup GPT at the
    // very end of the disk survives, and the first MiB is all zeros.
    plain("gpt-backup-only", ["partition-table:gpt"], async (file) => {
      await gptDisk(file);
      await writeAt(file, 0, Buffer.alloc(34 * 512));
    }),
    // A protective MBR alone: one 0xEE entry over the disk, no GPT behind it.
    plain("pmbr-only", ["partition-table:PMBR"], async (file) => {
      await sparseFile(file, DISK_BYTES);
      await sfdisk(file, `label: dos\nstart=1, size=${sectors - 1}, type=ee\n`);
    }),
    plain(
      "liken-labels-imitation",
      ["partition-table:gpt", "partition-table:PMBR", "partitions", "liken-labels-without-claim"],
      async (file) => {
        await sparseFile(file, DISK_BYTES);
        const p = (mib: number) => (mib * MiB) / 512;
        await sfdisk(
          file,
          [
            "label: gpt",
            `size=${p(64)}, type=${PARTITION_TYPES.esp}, name="liken-esp"`,
            `size=${p(128)}, type=${GPT_LINUX}, name="liken-a"`,
            `size=${p(128)}, type=${GPT_LINUX}, name="liken-b"`,
            `size=${p(32)}, type=${GPT_LINUX}, name="liken-journal"`,
            `type=${GPT_LINUX}, name="liken-state"`,
            "",
          ].join("\n"),
        );
      },
    ),
    // ext4 inside the first partition (at 1 MiB). From an image file the classifier sees
    // the table; the file system itself is at 0x100438 on the disk (check: blkid -p -O 1048576).
    plain("ext4-in-dos-partition", ["partition-table:dos", "partitions"], async (file) => {
      await sparseFile(file, DISK_BYTES);
      await sfdisk(file, `label: dos\nstart=2048, size=${(256 * MiB) / 512}, type=83\n`);
      await run("mkfs.ext4", ["-q", "-F", "-E", `offset=${MiB},lazy_itable_init=1`, file, "256M"]);
    }),
    plain(
      "ext4-in-gpt-partition",
      ["partition-table:gpt", "partition-table:PMBR", "partitions"],
      async (file) => {
        await gptDisk(file);
        await run("mkfs.ext4", [
          "-q",
          "-F",
          "-E",
          `offset=${MiB},lazy_itable_init=1`,
          file,
          "256M",
        ]);
      },
    ),

    // --- file systems, swap, crypto, volume managers: the whole disk
    mkfs("ext4", ["signature:ext4@0x438"], "mkfs.ext4", ["-q", "-F", "-E", "lazy_itable_init=1"]),
    mkfs("xfs", ["signature:xfs@0x0"], "mkfs.xfs", ["-q", "-f"]),
    mkfs("btrfs", ["signature:btrfs@0x10040"], "mkfs.btrfs", ["-q", "-f"]),
    mkfs(
      "vfat",
      ["signature:vfat@0x0", "signature:vfat@0x52", "signature:vfat@0x1fe"],
      "mkfs.vfat",
      ["-F", "32"],
    ),
    // mkntfs's boot sector ends in 55 AA, and wipefs reports it as a dos table too.
    mkfs("ntfs", ["signature:ntfs@0x3", "partition-table:dos"], "mkntfs", ["-F", "-Q", "-q"]),
    mkfs("swap", ["signature:swap@0xff6"], "mkswap", []),
    plain("iso9660", ["signature:iso9660@0x8001"], async (file, dir) => {
      const src = join(dir, "iso-src");
      await mkdir(src, { recursive: true });
      await writeFile(join(src, "README.TXT"), "liken corpus\n");
      await run("genisoimage", ["-quiet", "-V", "LIKEN_CORPUS", "-o", file, src]);
      await growTo(file, DISK_BYTES);
    }),
    plain("erofs", ["signature:erofs@0x400"], async (file, dir) => {
      const src = join(dir, "erofs-src");
      await mkdir(src, { recursive: true });
      await writeFile(join(src, "hello"), "liken corpus\n");
      await run("mkfs.erofs", ["--quiet", file, src]);
      await growTo(file, DISK_BYTES);
    }),
    plain("luks1", ["signature:crypto_LUKS@0x0"], async (file, dir) =>
      luksFormat(file, dir, "luks1"),
    ),
    // LUKS2 has a second header at 16 KiB, which wipefs lists too.
    plain(
      "luks2",
      ["signature:crypto_LUKS@0x0", "signature:crypto_LUKS@0x4000"],
      async (file, dir) => luksFormat(file, dir, "luks2"),
    ),
    plain(
      "mdraid-0.90",
      [`signature:linux_raid_member@${hexOffset(md090Offset(DISK_BYTES))}`],
      async (file) => {
        await sparseFile(file, DISK_BYTES);
        await writeAt(file, md090Offset(DISK_BYTES), md090Superblock(DISK_BYTES, "mdraid-0.90"));
      },
    ),
    md1(0),
    md1(1),
    md1(2),
    mkfs("bcache-backing", ["signature:bcache@0x1018"], "make-bcache", ["-B"]),
    mkfs("bcache-cache", ["signature:bcache@0x1018"], "make-bcache", ["-C"]),
    // pvcreate refuses a regular file: write the PV through a transient loop device.
    {
      name: "lvm2-pv",
      expect: "foreign",
      reasons: ["signature:LVM2_member@0x218"],
      rootToBuild: true,
      build: async (file, t) => {
        await sparseFile(file, DISK_BYTES);
        const dev = await t.attach(file);
        try {
          await run("pvcreate", ["--config", LVM_CONFIG, dev], {
            env: { LVM_SUPPRESS_FD_WARNINGS: "1" },
          });
        } finally {
          await t.detach(dev);
        }
        return undefined;
      },
    },

    // --- data without any signature
    plain("nonzero-tail", ["nonzero-data:tail"], async (file) => {
      await sparseFile(file, DISK_BYTES);
      await writeAt(file, DISK_BYTES - 100 * KiB, patternBytes("nonzero-tail", 4 * KiB));
    }),
    plain("nonzero-head", ["nonzero-data:head"], async (file) => {
      await sparseFile(file, DISK_BYTES);
      await writeAt(file, 700 * KiB, patternBytes("nonzero-head", 4 * KiB));
    }),
    // Random data throughout (a disk "securely erased"): nothing any tool recognizes, but
    // data in every region the classifier reads.
    plain(
      "random-data",
      ["nonzero-data:head", "nonzero-data:middle", "nonzero-data:tail"],
      async (file) => shredded(file),
    ),
    // Data everywhere but at both ends: a disk whose first 16 MiB and last MiB were zeroed
    // (by hand, or by an erase tool that stopped after its quick pass) still holds it.
    plain("nonzero-middle", ["nonzero-data:middle"], async (file) => {
      await shredded(file);
      await writeAt(file, 0, Buffer.alloc(HEAD_BYTES));
      await writeAt(file, MIN_DISK_BYTES - TAIL_BYTES, Buffer.alloc(TAIL_BYTES));
    }),

    // --- zapped partition tables over intact data (issue 14): the table is gone, what its
    // partitions held is not. The classifier must find it at the usual partition starts.
    plain(
      "zapped-gpt-ext4",
      ["signature:ext4@0x100000", "nonzero-data:head"],
      async (file, dir) => {
        await gptDisk(file);
        await ext4At(file, dir, "zapped-gpt-ext4", MiB, 400 * MiB);
        await zapTable(file);
      },
    ),
    zappedGpt("xfs", "xfs", 320 * MiB, (part) => run("mkfs.xfs", ["-q", "-f", part])),
    zappedGpt("luks2", "crypto_LUKS", 32 * MiB, (part, dir) =>
      luksFormat(part, dir, "luks2", 32 * MiB),
    ),
    zappedGpt("ntfs", "ntfs", 64 * MiB, (part) => run("mkntfs", ["-F", "-Q", "-q", part])),
    zappedGpt("vfat", "vfat", 64 * MiB, (part) => run("mkfs.vfat", [part])),
    zappedGpt("btrfs", "btrfs", 256 * MiB, (part) => run("mkfs.btrfs", ["-q", "-f", part])),
    zappedGpt("swap", "swap", 64 * MiB, (part) => run("mkswap", [part])),
    // pvcreate refuses a regular file: the PV is written through a transient loop device.
    {
      ...zappedGpt("lvm2-pv", "LVM2_member", 64 * MiB, async (part, _dir, t) => {
        const dev = await t.attach(part);
        try {
          await run("pvcreate", ["--config", LVM_CONFIG, dev], {
            env: { LVM_SUPPRESS_FD_WARNINGS: "1" },
          });
        } finally {
          await t.detach(dev);
        }
      }),
      rootToBuild: true,
    },
    // md RAID member partitions at 1 MiB, nothing recognizable in their data: the 1.2
    // superblock sits 4 KiB into the partition; 1.0 and 0.90 sit at its end, which only the
    // partition's size (gone with the table) leads to.
    zappedMd(2),
    zappedMd(0),
    zappedMd("0.90"),
    // The MBR era's first partition at sector 63, its table zapped.
    plain(
      "zapped-dos-ext4-sector-63",
      [`signature:ext4@${hexOffset(63 * 512)}`, "nonzero-data:head"],
      async (file, dir) => {
        await sparseFile(file, DISK_BYTES);
        await sfdisk(file, `label: dos\nstart=63, size=${(256 * MiB) / 512}, type=83\n`);
        await ext4At(file, dir, "zapped-dos-ext4-sector-63", 63 * 512, 256 * MiB);
        await zapTable(file);
      },
    ),
    plain(
      "zapped-gpt-ext4-at-2m",
      [`signature:ext4@${hexOffset(2 * MiB)}`, "nonzero-data:head"],
      async (file, dir) => {
        await sparseFile(file, DISK_BYTES);
        const start = (2 * MiB) / 512;
        await sfdisk(
          file,
          `label: gpt\nstart=${start}, size=${(256 * MiB) / 512}, type=${GPT_LINUX}\n`,
        );
        await ext4At(file, dir, "zapped-gpt-ext4-at-2m", 2 * MiB, 256 * MiB);
        await zapTable(file);
      },
    ),
    // A zapped table whose first partition (an ESP of 256 MiB) was never formatted: only
    // the common start of a second partition, 257 MiB, leads to the filesystem.
    plain(
      "zapped-gpt-empty-esp-ext4-at-257m",
      [`signature:ext4@${hexOffset(257 * MiB)}`],
      async (file, dir) => {
        await sparseFile(file, DISK_BYTES);
        await sfdisk(
          file,
          `label: gpt\nstart=2048, size=${(256 * MiB) / 512}\nstart=${(257 * MiB) / 512}, size=${(256 * MiB) / 512}, type=${GPT_LINUX}\n`,
        );
        await ext4At(file, dir, "zapped-gpt-empty-esp-ext4-at-257m", 257 * MiB, 256 * MiB);
        await zapTable(file);
      },
    ),
    // A former ESXi datastore behind a zapped table: VMFS keeps the first MiB of its
    // partition empty and its volume header at 1 MiB (its filesystem header at 2 MiB), so
    // only looking past the first 512 KiB of a start finds it (libblkid's vmfs.c).
    plain(
      "zapped-gpt-empty-esp-vmfs-at-257m",
      [`signature:VMFS_volume_member@${hexOffset(257 * MiB)}`],
      async (file) => {
        await sparseFile(file, DISK_BYTES);
        await writeAt(file, 258 * MiB, Buffer.from([0x0d, 0xd0, 0x01, 0xc0]));
      },
    ),
    plain(
      "zapped-gpt-empty-esp-vmfs-fs-at-513m",
      [`signature:VMFS@${hexOffset(513 * MiB)}`],
      async (file) => {
        await sparseFile(file, DISK_BYTES);
        await writeAt(file, 515 * MiB, Buffer.from([0x5e, 0xf1, 0xab, 0x2f]));
      },
    ),
    // Only the backup GPT survives, and it names a partition at 17 MiB, beyond the head
    // the classifier reads and at no usual start: only the backup's entry leads there.
    plain(
      "gpt-backup-only-ext4-at-17m",
      ["partition-table:gpt", "partitions", `signature:ext4@${hexOffset(17 * MiB)}`],
      async (file, dir) => {
        await sparseFile(file, DISK_BYTES);
        const start = (17 * MiB) / 512;
        await sfdisk(
          file,
          `label: gpt\nstart=${start}, size=${(256 * MiB) / 512}, type=${GPT_LINUX}\n`,
        );
        await ext4At(file, dir, "gpt-backup-only-ext4-at-17m", 17 * MiB, 256 * MiB);
        await zapTable(file, { keepBackup: true });
      },
    ),

    // --- loop devices (root, `loopDevices`)
    {
      name: "loop-blank",
      expect: "blank",
      reasons: [],
      loop: true,
      build: async (file, t) => {
        await sparseFile(file, DISK_BYTES);
        return t.attach(file);
      },
    },
    {
      name: "loop-read-only-blank",
      expect: "ineligible",
      reasons: ["read-only"],
      loop: true,
      build: async (file, t) => {
        await sparseFile(file, DISK_BYTES);
        return t.attach(file, { readOnly: true });
      },
    },
    // A partition mounted: the whole disk refuses an O_EXCL open (EBUSY).
    {
      name: "loop-mounted-ext4-partition",
      expect: "foreign",
      reasons: [
        "partition-table:dos",
        "partitions",
        "signature:ext4@0x100438",
        "mounted:*",
        "busy",
      ],
      loop: true,
      build: async (file, t, dir) => {
        await sparseFile(file, DISK_BYTES);
        await sfdisk(file, `label: dos\nstart=2048, size=${(256 * MiB) / 512}, type=83\n`);
        const dev = await t.attach(file, { partscan: true });
        const [part] = await ensurePartitions(dev, 1);
        await run("mkfs.ext4", ["-q", "-F", "-E", "lazy_itable_init=1", part!]);
        await t.mount(part!, join(dir, "mnt", "loop-mounted-ext4-partition"), "ext4");
        return dev;
      },
    },
    // A partition with xfs, not mounted: the signature is on the partition, not the disk.
    {
      name: "loop-gpt-xfs-partition",
      expect: "foreign",
      reasons: [
        "partition-table:gpt",
        "partition-table:PMBR",
        "partitions",
        "signature:xfs@0x100000",
      ],
      loop: true,
      build: async (file, t) => {
        await gptDisk(file, 400 * MiB);
        const dev = await t.attach(file, { partscan: true });
        const [part] = await ensurePartitions(dev, 1);
        await run("mkfs.xfs", ["-q", "-f", part!]);
        return dev;
      },
    },
  ];
}

async function luksFormat(
  file: string,
  dir: string,
  type: "luks1" | "luks2",
  bytes = DISK_BYTES,
): Promise<void> {
  await sparseFile(file, bytes);
  // One key file per disk: the builds run side by side.
  const key = join(dir, `${basename(file)}.key`);
  await writeFile(key, patternBytes(`${type}-key`, 32), { mode: 0o600 });
  await run("cryptsetup", [
    "luksFormat",
    "--type",
    type,
    "--batch-mode",
    "--key-file",
    key,
    "--pbkdf",
    "pbkdf2",
    "--pbkdf-force-iterations",
    "1000",
    file,
  ]);
}

/**
 * Builds the disk corpus in `dir` (created if missing; the caller removes it). Image cases
 * are sparse files under `dir/disks`; with `loopDevices` (root) it also attaches loop
 * devices, and mounts one partition under `dir/mnt`. The LVM PV cases need root to build
 * (pvcreate refuses files) and are left out otherwise. If building fails, everything already
 * attached or mounted is undone before the error is thrown.
 */
export async function buildDiskCorpus(
  dir: string,
  opts: { loopDevices?: boolean } = {},
): Promise<DiskCorpus> {
  await mkdir(join(dir, "disks"), { recursive: true });
  const real = await realpath(dir);
  const tracker = new Tracker(real);
  const cleanup = (): Promise<void> => tracker.cleanup();
  const root = isRoot();
  if (opts.loopDevices && !root) throw new Error("loop devices need root");
  try {
    const all = recipes().filter((r) =>
      r.loop ? opts.loopDevices === true : !r.rootToBuild || root,
    );
    const build = async (r: Recipe): Promise<CorpusCase> => {
      const file = join(real, "disks", `${r.name}.img`);
      const path = (await r.build(file, tracker, real)) ?? file;
      const found = await nonzeroRegions(path);
      const mountReasons = r.reasons.map((reason) =>
        reason === "mounted:*" ? `mounted:${join(real, "mnt", r.name)}` : reason,
      );
      // A recipe names the regions its data must reach; the bytes decide all the others.
      for (const region of ["head", "middle", "tail"] as const) {
        if (r.reasons.includes(`nonzero-data:${region}`) && !found[region]) {
          throw new Error(`corpus case ${r.name}: its ${region} came out all zeros`);
        }
      }
      const reasons = [
        ...mountReasons.filter((x) => !x.startsWith("nonzero-data:")),
        ...nonzeroReasons(found),
      ];
      return {
        name: r.name,
        path,
        expect: r.expect,
        reasons,
        needsRoot: path.startsWith("/dev/"),
        ...(r.placed ? { placed: r.placed } : {}),
      };
    };
    // Loop devices first, one at a time: partx and mount are easier to reason about in
    // sequence, and a build that fails there fails before the slow image builds.
    const loops = await mapLimit(
      all.filter((r) => r.loop),
      1,
      build,
    );
    const images = await mapLimit(
      all.filter((r) => !r.loop),
      3,
      build,
    );
    return { cases: [...images, ...loops], cleanup };
  } catch (e) {
    try {
      await cleanup();
    } catch (cleanupError) {
      throw new AggregateError(
        [e, cleanupError],
        "building the disk corpus failed, and so did its cleanup",
      );
    }
    throw e;
  }
}

export { mapLimit };
