// The value of a Boot#### variable: an EFI_LOAD_OPTION (UEFI spec 2.10, section 3.1.3) whose
// device path names a file on a GPT partition by the partition's place and GUID (a short-form
// "HD(...)/File(...)" path, as `efibootmgr --create` writes), so the firmware finds the disk
// wherever it is plugged in. Node layouts: Hard Drive (10.3.5.1), File Path (10.3.5.4), End
// of Entire Device Path (10.3.1).
import { efiGuidBytes, efiGuidText } from "./efi-guid.ts";

/** LOAD_OPTION_ACTIVE: the firmware may boot the option. */
export const LOAD_OPTION_ACTIVE = 0x1;

const MEDIA = 0x04;
const HARD_DRIVE = 0x01;
const FILE_PATH = 0x04;
const END = 0x7f;
const END_ENTIRE = 0xff;
const HARD_DRIVE_LENGTH = 42;
const FORMAT_GPT = 0x02;
const SIGNATURE_GUID = 0x02;

/** A GPT partition as the firmware addresses it: numbers in logical blocks. */
export interface EfiPartition {
  /** The partition's entry number in the GPT, from 1. */
  readonly number: number;
  readonly startLba: number;
  readonly sizeLba: number;
  /** The partition's unique GUID (its PARTUUID). */
  readonly uuid: string;
}

export interface LoadOption {
  /** What the firmware's boot menu shows. */
  readonly description: string;
  readonly partition: EfiPartition;
  /** The loader on that partition, in the firmware's spelling: `\EFI\BOOT\BOOTX64.EFI`. */
  readonly path: string;
}

/** What a Boot#### variable's value says, as far as liken needs to know. */
export interface DecodedLoadOption {
  readonly active: boolean;
  readonly description: string;
  /** The GUID of the first GPT Hard Drive node, when the path has one. */
  readonly partitionUuid?: string;
  /** The first File Path node's path. */
  readonly path?: string;
}

export function encodeLoadOption(option: LoadOption): Buffer {
  const { partition } = option;
  const hd = Buffer.alloc(HARD_DRIVE_LENGTH);
  hd.writeUInt8(MEDIA, 0);
  hd.writeUInt8(HARD_DRIVE, 1);
  hd.writeUInt16LE(HARD_DRIVE_LENGTH, 2);
  hd.writeUInt32LE(partition.number, 4);
  hd.writeBigUInt64LE(BigInt(partition.startLba), 8);
  hd.writeBigUInt64LE(BigInt(partition.sizeLba), 16);
  efiGuidBytes(partition.uuid).copy(hd, 24);
  hd.writeUInt8(FORMAT_GPT, 40);
  hd.writeUInt8(SIGNATURE_GUID, 41);
  const pathText = ucs2z(option.path);
  const file = Buffer.alloc(4);
  file.writeUInt8(MEDIA, 0);
  file.writeUInt8(FILE_PATH, 1);
  file.writeUInt16LE(4 + pathText.length, 2);
  const end = Buffer.from([END, END_ENTIRE, 4, 0]);
  const paths = Buffer.concat([hd, file, pathText, end]);
  const head = Buffer.alloc(6);
  head.writeUInt32LE(LOAD_OPTION_ACTIVE, 0);
  head.writeUInt16LE(paths.length, 4);
  return Buffer.concat([head, ucs2z(option.description), paths]);
}

/** The option in `value`, or undefined when it is not a well-formed EFI_LOAD_OPTION. */
export function decodeLoadOption(value: Uint8Array): DecodedLoadOption | undefined {
  const b = Buffer.from(value.buffer, value.byteOffset, value.byteLength);
  if (b.length < 8) return undefined;
  const attributes = b.readUInt32LE(0);
  const pathsLength = b.readUInt16LE(4);
  let at = 6;
  while (at + 1 < b.length && b.readUInt16LE(at) !== 0) at += 2;
  if (at + 1 >= b.length) return undefined;
  const description = b.toString("utf16le", 6, at);
  const paths = b.subarray(at + 2, at + 2 + pathsLength);
  if (paths.length !== pathsLength) return undefined;
  let partitionUuid: string | undefined;
  let path: string | undefined;
  for (let node = 0; ; ) {
    if (node + 4 > paths.length) return undefined;
    const [type, subtype] = [paths[node], paths[node + 1]];
    const length = paths.readUInt16LE(node + 2);
    if (length < 4 || node + length > paths.length) return undefined;
    if (type === END && subtype === END_ENTIRE) break;
    const body = paths.subarray(node, node + length);
    if (type === MEDIA && subtype === HARD_DRIVE && length === HARD_DRIVE_LENGTH) {
      if (body[40] === FORMAT_GPT && body[41] === SIGNATURE_GUID)
        partitionUuid ??= efiGuidText(body, 24);
    } else if (type === MEDIA && subtype === FILE_PATH) {
      path ??= body.toString("utf16le", 4).replace(/\0.*$/s, "");
    }
    node += length;
  }
  return {
    active: (attributes & LOAD_OPTION_ACTIVE) !== 0,
    description,
    ...(partitionUuid ? { partitionUuid } : {}),
    ...(path !== undefined ? { path } : {}),
  };
}

// CHAR16 text with its NUL: UCS-2, so every character must be in the Basic Multilingual Plane.
function ucs2z(text: string): Buffer {
  if (/[\uD800-\uDFFF]/.test(text)) throw new Error(`"${text}" has characters UCS-2 cannot hold`);
  return Buffer.from(`${text}\0`, "utf16le");
}
