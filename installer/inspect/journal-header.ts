// Reads the crash journal partition's header that installer/journal.ts writes: magic,
// format version, where records start, the install id and the partition size, with a
// CRC-32 over everything before it.
import { crc32 } from "node:zlib";
import { uuidAt } from "../claim.ts";
import { JOURNAL_HEADER_SIZE } from "../journal.ts";

export interface JournalHeader {
  readonly installId: string;
  readonly recordsOffset: number;
  readonly partitionSize: number;
}

const MAGIC = "LIKENJNL";
const FORMAT_VERSION = 1;

/** The header in the partition's first bytes, or undefined when magic, version or CRC fail. */
export function decodeJournalHeader(bytes: Uint8Array): JournalHeader | undefined {
  const b = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  if (b.length < JOURNAL_HEADER_SIZE || b.toString("ascii", 0, 8) !== MAGIC) return undefined;
  if (b.readUInt32LE(8) !== FORMAT_VERSION) return undefined;
  const crcAt = JOURNAL_HEADER_SIZE - 4;
  if (crc32(b.subarray(0, crcAt)) !== b.readUInt32LE(crcAt)) return undefined;
  return {
    installId: uuidAt(b, 16),
    recordsOffset: b.readUInt32LE(12),
    partitionSize: Number(b.readBigUInt64LE(32)),
  };
}
