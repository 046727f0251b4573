// Partition tables as bytes for the damaged-disk corpus (test/corpus/damaged-disks.ts): a
// valid GPT from formats/gpt-encode.ts, then one field changed and every checksum that
// covers it computed again, so a reader that trusts checksums acts on the damage; and MBRs
// with extended partitions whose chain of EBRs a reader must follow with care.
import { createHash } from "node:crypto";
import { crc32 } from "node:zlib";
import { MIB } from "../../common/size.ts";
import { efiGuidBytes } from "../../formats/efi-guid.ts";
import { encodeGpt } from "../../formats/gpt-encode.ts";

/** Bytes to write at a byte offset of a disk. */
export interface Patch {
  readonly at: number;
  readonly bytes: Buffer;
}

export const SECTOR = 512;
const LINUX = "0FC63DAF-8483-4772-8E79-3D69D8477DE4";
const ENTRY_SIZE = 128;
/** encodeGpt's and sfdisk's array: 128 entries of 128 bytes. */
export const ARRAY_BYTES = 128 * ENTRY_SIZE;

/** A GPT in 512-byte sectors: `head` at 0 (PMBR, header, array), `tail` at `tailOffset`. */
export interface Gpt {
  readonly head: Buffer;
  readonly tail: Buffer;
  readonly tailOffset: number;
}

export interface Part {
  readonly first: number;
  readonly last: number;
}

/** Three Linux partitions of 100 MiB from 1 MiB: a table like any installer's. */
export const THREE_PARTS: readonly Part[] = [0, 1, 2].map((i) => ({
  first: (1 + 100 * i) * (MIB / SECTOR),
  last: (1 + 100 * (i + 1)) * (MIB / SECTOR) - 1,
}));

/** A valid GPT naming `parts` (LBAs) on a disk of `size` bytes. */
export function validGpt(size: number, parts: readonly Part[] = THREE_PARTS): Gpt {
  const encoded = encodeGpt({
    diskSize: size,
    sectorSize: SECTOR,
    diskGuid: "D15C0000-0000-4000-8000-000000000046",
    entries: parts.map((p, i) => ({
      start: p.first * SECTOR,
      size: (p.last - p.first + 1) * SECTOR,
      typeGuid: LINUX,
      uuid: `9A270000-0000-4000-8000-${String(i + 1).padStart(12, "0")}`,
      name: `part-${i + 1}`,
    })),
  });
  return {
    head: Buffer.from(encoded.head),
    tail: Buffer.from(encoded.tail),
    tailOffset: encoded.tailOffset,
  };
}

/** The GPT as sfdisk or encodeGpt laid it out, read back from a disk's first and last bytes. */
export function gptOf(head: Buffer, tail: Buffer, size: number): Gpt {
  return { head, tail, tailOffset: size - tail.length };
}

export function gptPatches(gpt: Gpt): Patch[] {
  return [
    { at: 0, bytes: gpt.head },
    { at: gpt.tailOffset, bytes: gpt.tail },
  ];
}

export type Which = "primary" | "backup" | "both";

/** The headers named, each a view from its first byte to the end of its buffer. */
function headers(gpt: Gpt, which: Which): Buffer[] {
  const primary = gpt.head.subarray(SECTOR);
  const backup = gpt.tail.subarray(gpt.tail.length - SECTOR);
  return which === "primary" ? [primary] : which === "backup" ? [backup] : [primary, backup];
}

/**
 * The header's CRC over its own HeaderSize bytes, as a reader checks it; a size past the
 * buffer covers what is there (the primary's array), a size of 0 nothing.
 */
function reseal(header: Buffer): void {
  const size = header.readUInt32LE(12);
  header.writeUInt32LE(0, 16);
  header.writeUInt32LE(crc32(header.subarray(0, Math.min(size, header.length))), 16);
}

/** Changes the named headers (`change` sees each from its first byte), then reseals them. */
export function changeHeader(gpt: Gpt, which: Which, change: (header: Buffer) => void): Gpt {
  for (const h of headers(gpt, which)) {
    change(h);
    reseal(h);
  }
  return gpt;
}

/** Changes both arrays alike, then puts their CRC in both headers and reseals them. */
export function changeEntries(gpt: Gpt, change: (array: Buffer) => void): Gpt {
  const primary = gpt.head.subarray(2 * SECTOR, 2 * SECTOR + ARRAY_BYTES);
  change(primary);
  primary.copy(gpt.tail, 0);
  return changeHeader(gpt, "both", (h) => h.writeUInt32LE(crc32(primary), 88));
}

/** Entry `index` (from 0) of an array, its type, UUID and name kept or made up. */
export function setEntry(array: Buffer, index: number, part: Part): void {
  const at = index * ENTRY_SIZE;
  if (array.readBigUInt64LE(at) === 0n && array.readBigUInt64LE(at + 8) === 0n) {
    efiGuidBytes(LINUX).copy(array, at);
    efiGuidBytes(`9A270000-0000-4000-8000-${String(index + 1).padStart(12, "0")}`).copy(
      array,
      at + 16,
    );
  }
  array.writeBigUInt64LE(BigInt(part.first), at + 32);
  array.writeBigUInt64LE(BigInt(part.last), at + 40);
}

/** One entry of an MBR or EBR: a type and a place in sectors. */
export interface MbrEntry {
  readonly type: number;
  readonly start: number;
  readonly sectors: number;
}

/** An MBR or an EBR sector: up to four entries and the 0x55AA signature. */
export function mbrSector(entries: readonly MbrEntry[]): Buffer {
  const b = Buffer.alloc(SECTOR);
  entries.forEach((e, i) => {
    const at = 446 + 16 * i;
    // CHS as sfdisk writes it for anything past 8 GiB: the LBA fields are what counts.
    Buffer.from([0x00, 0xfe, 0xff, 0xff, e.type, 0xfe, 0xff, 0xff]).copy(b, at);
    b.writeUInt32LE(e.start, at + 8);
    b.writeUInt32LE(e.sectors, at + 12);
  });
  b.writeUInt16LE(0xaa55, 510);
  return b;
}

export const EXTENDED = 0x05;
export const LINUX_MBR = 0x83;

/** Deterministic bytes no tool recognizes: SHA-256 in counter mode. */
export function noise(seed: string, length: number): Buffer {
  const out = Buffer.alloc(length);
  for (let i = 0, block = 0; i < length; block++) {
    i += createHash("sha256").update(`${seed}:${block}`).digest().copy(out, i);
  }
  return out;
}
