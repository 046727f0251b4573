// The crash journal partition's header: written by the installer, read by the boot agent and
// by `inspect`. The boot path appends crash records after it (the record format belongs to
// the boot agent, formats/journal-records.ts); the install id in the header lets the agent and
// inspect ignore records an earlier install left in the same blocks.
//
//   0  "LIKENJNL"  magic
//   8  u32 LE      format version, 1
//  12  u32 LE      where records start (the header's size)
//  16  16 bytes    the install id
//  32  u64 LE      the partition's size
//  4092 u32 LE     CRC-32 of everything before it
import { crc32 } from "node:zlib";
import { uuidAt } from "./claim.ts";

export const JOURNAL_HEADER_SIZE = 4096;

const MAGIC = "LIKENJNL";
const FORMAT_VERSION = 1;

export interface JournalHeader {
  readonly installId: string;
  readonly recordsOffset: number;
  readonly partitionSize: number;
}

export function journalHeader(installId: string, partitionSize: number): Buffer {
  const b = Buffer.alloc(JOURNAL_HEADER_SIZE);
  b.write(MAGIC, 0, "ascii");
  b.writeUInt32LE(FORMAT_VERSION, 8);
  b.writeUInt32LE(JOURNAL_HEADER_SIZE, 12); // records start here
  Buffer.from(installId.replaceAll("-", ""), "hex").copy(b, 16);
  b.writeBigUInt64LE(BigInt(partitionSize), 32);
  b.writeUInt32LE(crc32(b.subarray(0, JOURNAL_HEADER_SIZE - 4)), JOURNAL_HEADER_SIZE - 4);
  return b;
}

/** The header in the partition's first bytes, or undefined when magic, version or CRC fail. */
export function decodeJournalHeader(bytes: Uint8Array): JournalHeader | undefined {
  const b = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  if (b.length < JOURNAL_HEADER_SIZE || b.toString("ascii", 0, 8) !== MAGIC) return undefined;
  if (b.readUInt32LE(8) !== FORMAT_VERSION) return undefined;
  const crcAt = JOURNAL_HEADER_SIZE - 4;
  if (crc32(b.subarray(0, crcAt)) !== b.readUInt32LE(crcAt)) return undefined;
  // Records that start inside the header would overwrite it at the first append, and the
  // journal would be lost (journal-io.fuzz.test.ts): not a header liken wrote.
  const recordsOffset = b.readUInt32LE(12);
  if (recordsOffset < JOURNAL_HEADER_SIZE) return undefined;
  return {
    installId: uuidAt(b, 16),
    recordsOffset,
    partitionSize: Number(b.readBigUInt64LE(32)),
  };
}
