// The crash journal's records (docs/design.md section 6), after the 4096-byte header that the
// installer writes (formats/journal-header.ts). Each record starts on a 512-byte boundary,
// and the writer starts each on a boundary of the disk's physical block (appendOffset):
//
//   0  "LIKENCR1"   magic
//   8  u64 LE       sequence number, one more than the newest record before it
//  16  u32 LE       payload length in bytes
//  20  u32 LE       CRC-32 of bytes 8..20 and the payload
//  24  payload      UTF-8 JSON of a CrashRecord
//
// Appends go after the newest record and wrap to the start of the area when the next one
// does not fit, so the journal is a ring: the oldest records are overwritten first. A record
// whose magic is there but whose length or CRC is wrong was torn by a power loss or
// damaged; a reader skips it, counts it, and goes on.
import { crc32 } from "node:zlib";
import type { Slot } from "./boot-entries.ts";

/** A kernel crash as the crash journal keeps it (docs/design.md section 6, docs/inspect.md). */
export interface CrashRecord {
  /** A digest of the pstore text: the same crash is never appended twice. */
  readonly id: string;
  readonly time: string;
  /** The boot that crashed, from the line the agent writes to the kernel log; "" when absent. */
  readonly bootId: string;
  readonly release: string | null;
  readonly slot: Slot | null;
  /** The kernel's reason word: Panic, Oops, Emergency, ... */
  readonly kind: string;
  /** The kernel's last lines, ending at `Kernel panic - not syncing` and a few after. */
  readonly lines: readonly string[];
}

export const RECORD_ALIGN = 512;
export const RECORD_HEADER = 24;
const MAGIC = Buffer.from("LIKENCR1", "ascii");
/** A crash record's payload never needs more; a longer length is damage. */
export const MAX_PAYLOAD = 256 * 1024;

export interface StoredRecord {
  readonly seq: number;
  /** Bytes from the start of the records area. */
  readonly offset: number;
  /** Bytes the record takes, aligned. */
  readonly span: number;
  readonly crash: CrashRecord;
}

export interface JournalScan {
  /** Newest first. */
  readonly records: readonly StoredRecord[];
  /** Records whose magic is there but whose length, CRC or payload is not: torn or corrupt. */
  readonly skipped: number;
}

export function encodeRecord(seq: number, crash: CrashRecord): Buffer {
  const payload = Buffer.from(JSON.stringify(crash), "utf8");
  const span = alignUp(RECORD_HEADER + payload.length);
  const b = Buffer.alloc(span);
  MAGIC.copy(b, 0);
  b.writeBigUInt64LE(BigInt(seq), 8);
  b.writeUInt32LE(payload.length, 16);
  payload.copy(b, RECORD_HEADER);
  b.writeUInt32LE(recordCrc(b.subarray(8, 20), payload), 20);
  return b;
}

/**
 * Whether `chunk` (a MiB of the records area, or its end) holds a record's magic. Records
 * fill the area from its start with no gap (an append goes right after the newest record,
 * or to the start when it does not fit) and none is longer than 257 KiB, so a MiB without
 * a magic lies past the last record: a reader stops there (an empty 64 MiB journal is read
 * as its first MiB).
 */
export function holdsRecordMagic(chunk: Uint8Array): boolean {
  return Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength).indexOf(MAGIC) >= 0;
}

/** Every intact record in the records area, newest first, and how many were skipped. */
export function scanRecords(area: Uint8Array): JournalScan {
  const b = Buffer.from(area.buffer, area.byteOffset, area.byteLength);
  const records: StoredRecord[] = [];
  let skipped = 0;
  // Records a journal holds do not overlap, so their CRCs cover the area at most once. A
  // magic on every 512 bytes, each naming a payload of MAX_PAYLOAD, would have 64 MiB of
  // journal checksum 32 GiB (5 s for inspect and the boot agent): past twice the area,
  // what is left counts as skipped unchecked.
  let checksums = 2 * b.length;
  for (let at = 0; at + RECORD_HEADER <= b.length; ) {
    // The next magic, found natively: a 64 MiB journal is 131072 places to look, which one
    // comparison each cost the boot a quarter of a second under emulation. Only a magic on
    // the record grid counts.
    const found = b.indexOf(MAGIC, at);
    if (found < 0) break;
    if (found % RECORD_ALIGN !== 0) {
      at = alignUp(found);
      continue;
    }
    at = found;
    if (at + RECORD_HEADER > b.length) break;
    // What decodeAt would checksum: nothing when the length is out of bounds.
    const length = b.readUInt32LE(at + 16);
    const cost = length <= MAX_PAYLOAD && at + RECORD_HEADER + length <= b.length ? length : 0;
    const record = cost <= checksums ? decodeAt(b, at) : undefined;
    checksums -= Math.min(cost, checksums);
    if (!record) {
      skipped++;
      at += RECORD_ALIGN;
      continue;
    }
    records.push(record);
    at += record.span;
  }
  records.sort((x, y) => y.seq - x.seq);
  return { records, skipped };
}

/**
 * Where the next record of `span` bytes goes in an area of `areaSize` bytes: after the
 * newest, on a boundary of `block` bytes (the disk's physical block, a multiple of 512).
 * A drive writes a whole physical block even for part of it, so on a 4Kn or a 512e drive a
 * record sharing a block with the one before could tear that one too at a power loss.
 */
export function appendOffset(
  scan: JournalScan,
  span: number,
  areaSize: number,
  block = RECORD_ALIGN,
): number {
  const newest = scan.records[0];
  const next = newest ? alignUp(newest.offset + newest.span, block) : 0;
  return next + span <= areaSize ? next : 0;
}

export function nextSeq(scan: JournalScan): number {
  return (scan.records[0]?.seq ?? 0) + 1;
}

function decodeAt(b: Buffer, at: number): StoredRecord | undefined {
  const length = b.readUInt32LE(at + 16);
  if (length === 0 || length > MAX_PAYLOAD || at + RECORD_HEADER + length > b.length)
    return undefined;
  const payload = b.subarray(at + RECORD_HEADER, at + RECORD_HEADER + length);
  if (recordCrc(b.subarray(at + 8, at + 20), payload) !== b.readUInt32LE(at + 20)) return undefined;
  // A number past 2^53 is not one liken wrote, and the next one could not be written.
  const seq = b.readBigUInt64LE(at + 8);
  if (seq > BigInt(Number.MAX_SAFE_INTEGER)) return undefined;
  let value: unknown;
  try {
    value = JSON.parse(payload.toString("utf8"));
  } catch {
    // A payload that is not JSON is a torn or damaged record: the caller skips and counts it.
    return undefined;
  }
  const crash = crashRecordOf(value);
  if (!crash) return undefined;
  return {
    seq: Number(seq),
    offset: at,
    span: alignUp(RECORD_HEADER + length),
    crash,
  };
}

// The boot plan and the status document use every field as its type says (a line that is
// not a string stopped the boot agent: journal-records.fuzz.test.ts), so a payload with a
// field of another type is damage, like a bad CRC.
function crashRecordOf(value: unknown): CrashRecord | undefined {
  const v = value as Partial<Record<keyof CrashRecord, unknown>> | null;
  if (typeof v !== "object" || v === null) return undefined;
  const { id, time, bootId, release, slot, kind, lines } = v;
  if (typeof id !== "string" || typeof time !== "string" || typeof kind !== "string")
    return undefined;
  if (typeof bootId !== "string" || (release !== null && typeof release !== "string"))
    return undefined;
  if (slot !== null && slot !== "a" && slot !== "b") return undefined;
  if (!Array.isArray(lines) || !lines.every((l) => typeof l === "string")) return undefined;
  return { id, time, bootId, release, slot, kind, lines };
}

function recordCrc(fields: Buffer, payload: Buffer): number {
  return crc32(payload, crc32(fields));
}

function alignUp(n: number, to = RECORD_ALIGN): number {
  return Math.ceil(n / to) * to;
}
