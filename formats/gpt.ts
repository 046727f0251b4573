// Reads a GUID Partition Table from the bytes at the start of a disk (UEFI spec 2.10,
// section 5.3), so probing and inspecting need no tool and no root. The backup is read
// only to learn where a damaged or zapped primary's partitions started.
import { crc32 } from "node:zlib";

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

/** The GPT in `head` (the disk's first bytes), trying 512- and 4096-byte sectors; undefined if none verifies. */
export function parseGpt(
  head: Uint8Array,
  sectorSizes: readonly number[] = [512, 4096],
): Gpt | undefined {
  const buf = Buffer.from(head.buffer, head.byteOffset, head.byteLength);
  for (const sectorSize of sectorSizes) {
    const gpt = parseAt(buf, sectorSize);
    if (gpt) return gpt;
  }
  return undefined;
}

/**
 * The backup GPT in `tail`, the disk's last bytes (`diskSize` long in all), trying 512- and
 * 4096-byte sectors; undefined if none verifies or its entries lie outside `tail`.
 */
export function parseBackupGpt(
  tail: Uint8Array,
  diskSize: number,
  sectorSizes: readonly number[] = [512, 4096],
): Gpt | undefined {
  const buf = Buffer.from(tail.buffer, tail.byteOffset, tail.byteLength);
  const tailStart = diskSize - buf.length;
  for (const sectorSize of sectorSizes) {
    const at = diskSize - sectorSize - tailStart;
    if (at < 0) continue;
    const gpt = parseHeader(buf.subarray(at, at + sectorSize), sectorSize, (lba, length) => {
      const from = lba * sectorSize - tailStart;
      return from >= 0 ? buf.subarray(from, from + length) : Buffer.alloc(0);
    });
    if (gpt) return gpt;
  }
  return undefined;
}

function parseAt(buf: Buffer, sectorSize: number): Gpt | undefined {
  return parseHeader(buf.subarray(sectorSize, sectorSize * 2), sectorSize, (lba, length) =>
    buf.subarray(lba * sectorSize, lba * sectorSize + length),
  );
}

function parseHeader(
  h: Buffer,
  sectorSize: number,
  entriesAt: (lba: number, length: number) => Buffer,
): Gpt | undefined {
  if (h.length < 92 || h.toString("ascii", 0, 8) !== "EFI PART") return undefined;
  const headerSize = h.readUInt32LE(12);
  if (headerSize < 92 || headerSize > sectorSize) return undefined;
  const header = Buffer.from(h.subarray(0, headerSize));
  const headerCrc = header.readUInt32LE(16);
  header.writeUInt32LE(0, 16);
  if (crc32(header) !== headerCrc) return undefined;
  const entriesLba = Number(h.readBigUInt64LE(72));
  const count = h.readUInt32LE(80);
  const entrySize = h.readUInt32LE(84);
  if (entrySize < 128 || count > 4096) return undefined;
  const table = entriesAt(entriesLba, count * entrySize);
  if (table.length < count * entrySize || crc32(table) !== h.readUInt32LE(88)) return undefined;
  const entries: GptEntry[] = [];
  for (let i = 0; i < count; i++) {
    const e = table.subarray(i * entrySize, (i + 1) * entrySize);
    const typeGuid = guid(e, 0);
    if (typeGuid === "00000000-0000-0000-0000-000000000000") continue;
    const first = Number(e.readBigUInt64LE(32));
    const last = Number(e.readBigUInt64LE(40));
    entries.push({
      number: i + 1,
      typeGuid,
      uuid: guid(e, 16),
      name: e.toString("utf16le", 56, 128).replace(/\0.*$/s, ""),
      start: first * sectorSize,
      size: (last - first + 1) * sectorSize,
    });
  }
  return { diskGuid: guid(h, 56), sectorSize, entries };
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
