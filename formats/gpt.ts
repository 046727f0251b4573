// Reads a GUID Partition Table from the bytes at the start or the end of a disk (UEFI spec
// 2.10, section 5.3), so probing and inspecting need no tool and no root. A disk's bytes are
// untrusted: a header is judged against the specification before its entry array is read,
// and a table that breaks a rule is `implausible`, never read further. libblkid trusts any
// header whose CRC matches: one naming 12,976,256 entries made wipefs read 1.6 GB of disk
// for a minute (issue 46), so the probe points no tool at a disk whose table is implausible.
import { crc32 } from "node:zlib";
import { MIB } from "../common/size.ts";

export interface GptEntry {
  readonly number: number;
  readonly typeGuid: string;
  readonly uuid: string;
  readonly name: string;
  /** Byte offsets. */
  readonly start: number;
  readonly size: number;
}

export interface Gpt {
  readonly diskGuid: string;
  readonly sectorSize: number;
  readonly entries: readonly GptEntry[];
}

/** Which rule a table breaks (docs/disks.md, "Untrusted bytes"). */
export type GptFlaw =
  | "header-size" // not 92 bytes to one sector
  | "header-crc"
  | "header-lba" // MyLBA is not where the header was read
  | "usable-range" // first usable past the last, outside the disk, or holding the header
  | "entry-size" // not 128 × 2^n bytes
  | "entry-count" // none, or an array larger than MAX_ENTRY_ARRAY
  | "entry-array" // not between the header and the usable range, or outside the disk
  | "entry-array-crc"
  | "entry-range" // a partition ends before it starts or leaves the usable range
  | "entry-overlap";

export type GptVerdict =
  | { readonly state: "none" }
  | { readonly state: "valid"; readonly gpt: Gpt }
  | { readonly state: "implausible"; readonly flaw: GptFlaw; readonly sectorSize: number };

/**
 * The largest entry array read: 8192 entries of 128 bytes. Partitioning tools write 128
 * (16 KiB, the UEFI minimum) and Linux uses at most 256 partitions; the specification sets
 * no maximum, so this is liken's, and a larger array reads as implausible.
 */
export const MAX_ENTRY_ARRAY = MIB;

const HEADER_MIN = 92;
const ENTRY_MIN = 128;
const NONE: GptVerdict = { state: "none" };

/**
 * The primary GPT in `head` (the disk's first bytes), trying each sector size in turn.
 * `diskSize`, when known, also holds the table to the disk's bounds.
 */
export function judgeGpt(
  head: Uint8Array,
  sectorSizes: readonly number[] = [512, 4096],
  diskSize?: number,
): GptVerdict {
  const buf = asBuffer(head);
  return firstOf(sectorSizes, (s) =>
    judgeHeader(buf.subarray(s, 2 * s), {
      sectorSize: s,
      myLba: 1n,
      diskLbas: diskSize === undefined ? undefined : BigInt(Math.floor(diskSize / s)),
      primary: true,
      bytesAt: (offset, length) => slice(buf, offset, length),
    }),
  );
}

/** The backup GPT in `tail`, the disk's last bytes (`diskSize` long in all). */
export function judgeBackupGpt(
  tail: Uint8Array,
  diskSize: number,
  sectorSizes: readonly number[] = [512, 4096],
): GptVerdict {
  const buf = asBuffer(tail);
  const tailStart = diskSize - buf.length;
  return firstOf(sectorSizes, (s) => {
    const lbas = Math.floor(diskSize / s);
    const at = (lbas - 1) * s - tailStart;
    if (lbas < 2 || at < 0) return NONE;
    return judgeHeader(buf.subarray(at, at + s), {
      sectorSize: s,
      myLba: BigInt(lbas - 1),
      diskLbas: BigInt(lbas),
      primary: false,
      bytesAt: (offset, length) => slice(buf, offset - tailStart, length),
    });
  });
}

/** The primary GPT when one verifies and is plausible. */
export function parseGpt(
  head: Uint8Array,
  sectorSizes: readonly number[] = [512, 4096],
): Gpt | undefined {
  const verdict = judgeGpt(head, sectorSizes);
  return verdict.state === "valid" ? verdict.gpt : undefined;
}

/** The backup GPT when one verifies and is plausible. */
export function parseBackupGpt(
  tail: Uint8Array,
  diskSize: number,
  sectorSizes: readonly number[] = [512, 4096],
): Gpt | undefined {
  const verdict = judgeBackupGpt(tail, diskSize, sectorSizes);
  return verdict.state === "valid" ? verdict.gpt : undefined;
}

// A valid table at any sector size wins; else the first implausible one says why.
function firstOf(sizes: readonly number[], judge: (s: number) => GptVerdict): GptVerdict {
  const verdicts = sizes.map(judge);
  return (
    verdicts.find((v) => v.state === "valid") ??
    verdicts.find((v) => v.state === "implausible") ??
    NONE
  );
}

interface Where {
  readonly sectorSize: number;
  /** Where the header was read: LBA 1, or the disk's last. */
  readonly myLba: bigint;
  /** The disk's size in sectors, when known. */
  readonly diskLbas: bigint | undefined;
  readonly primary: boolean;
  /** The given bytes at a disk offset, shorter when they end before `length`. */
  readonly bytesAt: (offset: number, length: number) => Buffer;
}

function judgeHeader(h: Buffer, where: Where): GptVerdict {
  if (h.length < HEADER_MIN || h.toString("latin1", 0, 8) !== "EFI PART") return NONE;
  const { sectorSize: s, myLba, diskLbas, primary } = where;
  const flaw = (f: GptFlaw): GptVerdict => ({ state: "implausible", flaw: f, sectorSize: s });
  const headerSize = h.readUInt32LE(12);
  if (headerSize < HEADER_MIN || headerSize > h.length) return flaw("header-size");
  const header = Buffer.from(h.subarray(0, headerSize));
  header.writeUInt32LE(0, 16);
  if (crc32(header) !== h.readUInt32LE(16)) return flaw("header-crc");
  if (h.readBigUInt64LE(24) !== myLba) return flaw("header-lba");
  const firstUsable = h.readBigUInt64LE(40);
  const lastUsable = h.readBigUInt64LE(48);
  const beyond = (lba: bigint) => diskLbas !== undefined && lba >= diskLbas;
  if (
    firstUsable > lastUsable ||
    beyond(lastUsable) ||
    (myLba >= firstUsable && myLba <= lastUsable)
  )
    return flaw("usable-range");
  const entrySize = h.readUInt32LE(84);
  if (entrySize < ENTRY_MIN || entrySize % ENTRY_MIN !== 0 || !isPowerOfTwo(entrySize / ENTRY_MIN))
    return flaw("entry-size");
  const count = h.readUInt32LE(80);
  const arrayBytes = count * entrySize; // both 32-bit: exact in a double
  if (count === 0 || arrayBytes > MAX_ENTRY_ARRAY) return flaw("entry-count");
  const entriesLba = h.readBigUInt64LE(72);
  const arrayEnd = entriesLba + BigInt(Math.ceil(arrayBytes / s));
  const placed = primary
    ? entriesLba > myLba && arrayEnd <= firstUsable
    : entriesLba > lastUsable && arrayEnd <= myLba;
  if (!placed || beyond(arrayEnd - 1n)) return flaw("entry-array");
  // Placed below the usable range or the disk's end: a safe integer once multiplied.
  const table = where.bytesAt(Number(entriesLba) * s, arrayBytes);
  if (table.length < arrayBytes) return flaw("entry-array");
  if (crc32(table) !== h.readUInt32LE(88)) return flaw("entry-array-crc");
  const entries = readEntries(table, count, entrySize, firstUsable, lastUsable, s);
  if (typeof entries === "string") return flaw(entries);
  return { state: "valid", gpt: { diskGuid: guid(h, 56), sectorSize: s, entries } };
}

function readEntries(
  table: Buffer,
  count: number,
  entrySize: number,
  firstUsable: bigint,
  lastUsable: bigint,
  s: number,
): GptEntry[] | "entry-range" | "entry-overlap" {
  const entries: GptEntry[] = [];
  const spans: [bigint, bigint][] = [];
  for (let i = 0; i < count; i++) {
    const e = table.subarray(i * entrySize, i * entrySize + ENTRY_MIN);
    const typeGuid = guid(e, 0);
    if (typeGuid === "00000000-0000-0000-0000-000000000000") continue;
    const first = e.readBigUInt64LE(32);
    const last = e.readBigUInt64LE(40);
    if (first > last || first < firstUsable || last > lastUsable) return "entry-range";
    spans.push([first, last]);
    entries.push({
      number: i + 1,
      typeGuid,
      uuid: guid(e, 16),
      name: e.toString("utf16le", 56, 128).replace(/\0.*$/s, ""),
      // Inside the usable range, which lies inside the disk: safe integers.
      start: Number(first) * s,
      size: Number(last - first + 1n) * s,
    });
  }
  spans.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  for (let i = 1; i < spans.length; i++) {
    if ((spans[i]?.[0] ?? 0n) <= (spans[i - 1]?.[1] ?? -1n)) return "entry-overlap";
  }
  return entries;
}

function isPowerOfTwo(n: number): boolean {
  return Number.isInteger(n) && n > 0 && (n & (n - 1)) === 0;
}

function asBuffer(bytes: Uint8Array): Buffer {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
}

// The bytes asked for that `buf` holds: fewer (maybe none) where it ends or begins later.
function slice(buf: Buffer, offset: number, length: number): Buffer {
  if (offset < 0 || offset >= buf.length) return Buffer.alloc(0);
  return buf.subarray(offset, offset + length);
}

// GUIDs on disk: the first three fields little-endian, the last two as bytes.
function guid(b: Buffer, at: number): string {
  const hex = (from: number, to: number) => b.subarray(at + from, at + to).toString("hex");
  const le = (from: number, to: number) =>
    Buffer.from(b.subarray(at + from, at + to))
      .reverse()
      .toString("hex");
  return `${le(0, 4)}-${le(4, 6)}-${le(6, 8)}-${hex(8, 10)}-${hex(10, 16)}`.toUpperCase();
}
