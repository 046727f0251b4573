// The crash journal partition's header. The boot path appends crash records after it (the
// record format belongs to the boot agent); the install id in the header lets the agent
// ignore records an earlier install left in the same blocks.
import { crc32 } from "node:zlib";

export const JOURNAL_HEADER_SIZE = 4096;

export function journalHeader(installId: string, partitionSize: number): Buffer {
  const b = Buffer.alloc(JOURNAL_HEADER_SIZE);
  b.write("LIKENJNL", 0, "ascii");
  b.writeUInt32LE(1, 8); // format version
  b.writeUInt32LE(JOURNAL_HEADER_SIZE, 12); // records start here
  Buffer.from(installId.replaceAll("-", ""), "hex").copy(b, 16);
  b.writeBigUInt64LE(BigInt(partitionSize), 32);
  b.writeUInt32LE(crc32(b.subarray(0, JOURNAL_HEADER_SIZE - 4)), JOURNAL_HEADER_SIZE - 4);
  return b;
}
