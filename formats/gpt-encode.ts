// A GPT as bytes (UEFI 2.10, section 5.3): the protective MBR, the primary header and entry
// array, and the backup array and header at the end. For image files laid out in 4096-byte
// sectors: Debian 12's sfdisk (util-linux 2.38) writes a file in 512-byte sectors whatever
// its script says, and only a loop device (root) would tell it otherwise. On block devices
// and in 512-byte files sfdisk writes the table (tools/sfdisk.ts); formats/gpt.ts reads both.
import { crc32 } from "node:zlib";
import { efiGuidBytes } from "./efi-guid.ts";

const ENTRIES = 128;
const ENTRY_SIZE = 128;
const HEADER_SIZE = 92;

export interface GptEntryInput {
  /** Byte offsets, whole sectors. */
  readonly start: number;
  readonly size: number;
  readonly typeGuid: string;
  readonly uuid: string;
  readonly name: string;
}

export interface EncodedGpt {
  /** Written at offset 0: the protective MBR, the header, the entries. */
  readonly head: Buffer;
  /** Written at `tailOffset`: the backup entries, then the backup header in the last sector. */
  readonly tail: Buffer;
  readonly tailOffset: number;
}

export function encodeGpt(table: {
  readonly diskSize: number;
  readonly sectorSize: number;
  readonly diskGuid: string;
  readonly entries: readonly GptEntryInput[];
}): EncodedGpt {
  const { sectorSize: s } = table;
  const lbas = Math.floor(table.diskSize / s);
  const arraySectors = (ENTRIES * ENTRY_SIZE) / s;
  const lba = (bytes: number) => {
    if (bytes % s !== 0)
      throw new RangeError(`${bytes} is not a whole number of ${s}-byte sectors`);
    return BigInt(bytes / s);
  };
  const array = Buffer.alloc(ENTRIES * ENTRY_SIZE);
  table.entries.forEach((e, i) => {
    const at = i * ENTRY_SIZE;
    efiGuidBytes(e.typeGuid).copy(array, at);
    efiGuidBytes(e.uuid).copy(array, at + 16);
    array.writeBigUInt64LE(lba(e.start), at + 32);
    array.writeBigUInt64LE(lba(e.start + e.size) - 1n, at + 40);
    array.write(e.name.slice(0, 36), at + 56, "utf16le");
  });
  const firstUsable = 2 + arraySectors;
  const lastUsable = lbas - 2 - arraySectors;
  const header = (my: number, alternate: number, entriesAt: number): Buffer => {
    const h = Buffer.alloc(s);
    h.write("EFI PART", 0, "ascii");
    h.writeUInt32LE(0x00010000, 8);
    h.writeUInt32LE(HEADER_SIZE, 12);
    h.writeBigUInt64LE(BigInt(my), 24);
    h.writeBigUInt64LE(BigInt(alternate), 32);
    h.writeBigUInt64LE(BigInt(firstUsable), 40);
    h.writeBigUInt64LE(BigInt(lastUsable), 48);
    efiGuidBytes(table.diskGuid).copy(h, 56);
    h.writeBigUInt64LE(BigInt(entriesAt), 72);
    h.writeUInt32LE(ENTRIES, 80);
    h.writeUInt32LE(ENTRY_SIZE, 84);
    h.writeUInt32LE(crc32(array), 88);
    h.writeUInt32LE(crc32(h.subarray(0, HEADER_SIZE)), 16);
    return h;
  };
  const mbr = Buffer.alloc(s);
  // One partition of type 0xEE over the whole disk (at most 2^32 - 1 sectors), CHS as sfdisk.
  Buffer.from([0x00, 0x00, 0x02, 0x00, 0xee, 0xff, 0xff, 0xff]).copy(mbr, 446);
  mbr.writeUInt32LE(1, 454);
  mbr.writeUInt32LE(Math.min(lbas - 1, 0xffffffff), 458);
  mbr.writeUInt16LE(0xaa55, 510);
  const last = lbas - 1;
  return {
    head: Buffer.concat([mbr, header(1, last, 2), array]),
    tail: Buffer.concat([array, header(last, 1, last - arraySectors)]),
    tailOffset: (last - arraySectors) * s,
  };
}
