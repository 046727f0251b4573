// PE32+ images (Microsoft's "PE Format"), as far as a unified kernel image and a Secure Boot
// signature need them: the sections, adding sections after the last one (what
// `objcopy --add-section --change-section-vma` does for systemd's stub, written here so the
// result is exact and reproducible), the Authenticode digest, and the certificate table.
import { createHash } from "node:crypto";

export interface Section {
  readonly name: string;
  readonly virtualAddress: number;
  readonly virtualSize: number;
  readonly rawOffset: number;
  readonly rawSize: number;
}

interface Layout {
  /** Offset of the optional header. */
  readonly optional: number;
  readonly sectionTable: number;
  readonly sections: readonly Section[];
  readonly sectionAlignment: number;
  readonly fileAlignment: number;
  readonly sizeOfHeaders: number;
}

const SECTION_HEADER = 40;
// Offsets in the PE32+ optional header.
const CHECKSUM = 64;
const SIZE_OF_IMAGE = 56;
const SIZE_OF_INITIALIZED_DATA = 8;
const CERTIFICATE_TABLE = 112 + 4 * 8;

function layout(pe: Buffer): Layout {
  if (pe.readUInt16LE(0) !== 0x5a4d) throw new Error("not a PE image (no MZ header)");
  const signature = pe.readUInt32LE(0x3c);
  if (pe.readUInt32LE(signature) !== 0x00004550) throw new Error("not a PE image (no PE header)");
  const coff = signature + 4;
  const count = pe.readUInt16LE(coff + 2);
  const optional = coff + 20;
  if (pe.readUInt16LE(optional) !== 0x20b) throw new Error("not a PE32+ image");
  const sectionTable = optional + pe.readUInt16LE(coff + 16);
  const sections: Section[] = [];
  for (let i = 0; i < count; i++) {
    const h = sectionTable + i * SECTION_HEADER;
    sections.push({
      name: pe.toString("latin1", h, h + 8).replace(/\0+$/, ""),
      virtualSize: pe.readUInt32LE(h + 8),
      virtualAddress: pe.readUInt32LE(h + 12),
      rawSize: pe.readUInt32LE(h + 16),
      rawOffset: pe.readUInt32LE(h + 20),
    });
  }
  return {
    optional,
    sectionTable,
    sections,
    sectionAlignment: pe.readUInt32LE(optional + 32),
    fileAlignment: pe.readUInt32LE(optional + 36),
    sizeOfHeaders: pe.readUInt32LE(optional + 60),
  };
}

export function peSections(pe: Buffer): readonly Section[] {
  return layout(pe).sections;
}

/** The bytes a section holds (its virtual size of them). */
export function sectionData(pe: Buffer, name: string): Buffer | undefined {
  const s = layout(pe).sections.find((x) => x.name === name);
  return s && pe.subarray(s.rawOffset, s.rawOffset + Math.min(s.virtualSize, s.rawSize));
}

const alignUp = (n: number, to: number) => Math.ceil(n / to) * to;

/**
 * `pe` with `added` as read-only data sections after its last one, in order, each at the next
 * aligned address, their bytes appended to the file. The image must be unsigned: a signature
 * would no longer match.
 */
export function addSections(
  pe: Buffer,
  added: readonly { readonly name: string; readonly data: Buffer }[],
): Buffer {
  const l = layout(pe);
  if (pe.readUInt32LE(l.optional + CERTIFICATE_TABLE + 4) !== 0)
    throw new Error("the PE image is signed; add sections to the unsigned one");
  const headerEnd = l.sectionTable + (l.sections.length + added.length) * SECTION_HEADER;
  const firstRaw = Math.min(...l.sections.map((s) => s.rawOffset).filter((o) => o > 0));
  if (headerEnd > l.sizeOfHeaders || headerEnd > firstRaw)
    throw new Error("the PE image has no room for more section headers");

  // What follows the last section in systemd's stub is a COFF symbol table nothing loads;
  // left in place, it would be a gap between sections that Authenticode digests disagree
  // on (EDK2 and sbverify hash it differently). Dropped, as `strip` would.
  const base = Buffer.from(
    pe.subarray(0, Math.max(...l.sections.map((s) => s.rawOffset + s.rawSize))),
  );
  const coffHeader = base.readUInt32LE(0x3c) + 4;
  base.writeUInt32LE(0, coffHeader + 8);
  base.writeUInt32LE(0, coffHeader + 12);
  const out: Buffer[] = [base];
  let fileEnd = base.length;
  let address = Math.max(...l.sections.map((s) => s.virtualAddress + s.virtualSize));
  let initialized = pe.readUInt32LE(l.optional + SIZE_OF_INITIALIZED_DATA);
  const headers = Buffer.alloc(added.length * SECTION_HEADER);
  added.forEach(({ name, data }, i) => {
    if (name.length > 8) throw new Error(`section name ${name} is longer than 8 bytes`);
    const rawOffset = alignUp(fileEnd, l.fileAlignment);
    const rawSize = alignUp(data.length, l.fileAlignment);
    address = alignUp(address, l.sectionAlignment);
    const h = i * SECTION_HEADER;
    headers.write(name, h, "latin1");
    headers.writeUInt32LE(data.length, h + 8);
    headers.writeUInt32LE(address, h + 12);
    headers.writeUInt32LE(rawSize, h + 16);
    headers.writeUInt32LE(rawOffset, h + 20);
    // IMAGE_SCN_CNT_INITIALIZED_DATA | IMAGE_SCN_MEM_READ
    headers.writeUInt32LE(0x40000040, h + 36);
    out.push(Buffer.alloc(rawOffset - fileEnd), data, Buffer.alloc(rawSize - data.length));
    fileEnd = rawOffset + rawSize;
    address += data.length;
    initialized += rawSize;
  });
  const result = Buffer.concat(out);
  headers.copy(result, l.sectionTable + l.sections.length * SECTION_HEADER);
  result.writeUInt16LE(l.sections.length + added.length, coffHeader + 2);
  result.writeUInt32LE(alignUp(address, l.sectionAlignment), l.optional + SIZE_OF_IMAGE);
  result.writeUInt32LE(initialized, l.optional + SIZE_OF_INITIALIZED_DATA);
  result.writeUInt32LE(peChecksum(result, l.optional), l.optional + CHECKSUM);
  return result;
}

/**
 * The Authenticode SHA-256 of an unsigned image: the headers without the checksum and the
 * certificate table's directory entry, the sections' bytes in file order, then what follows
 * the last section, as EDK2's DxeImageVerificationLib (HashPeImage) computes it.
 */
export function authenticodeDigest(pe: Buffer): Buffer {
  const l = layout(pe);
  const checksum = l.optional + CHECKSUM;
  const directory = l.optional + CERTIFICATE_TABLE;
  const certificates = pe.readUInt32LE(directory + 4);
  const hash = createHash("sha256");
  hash.update(pe.subarray(0, checksum));
  hash.update(pe.subarray(checksum + 4, directory));
  hash.update(pe.subarray(directory + 8, l.sizeOfHeaders));
  let hashed = l.sizeOfHeaders;
  for (const s of [...l.sections]
    .filter((x) => x.rawSize > 0)
    .sort((a, b) => a.rawOffset - b.rawOffset)) {
    hash.update(pe.subarray(s.rawOffset, s.rawOffset + s.rawSize));
    hashed = Math.max(hashed, s.rawOffset + s.rawSize);
  }
  const end = pe.length - certificates;
  if (end > hashed) hash.update(pe.subarray(hashed, end));
  return hash.digest();
}

/**
 * `pe` padded to 8 bytes with `signature` (an Authenticode ContentInfo for the padded
 * image) in its certificate table: one WIN_CERTIFICATE of type PKCS_SIGNED_DATA.
 */
export function padForSignature(pe: Buffer): Buffer {
  if (pe.readUInt32LE(layout(pe).optional + CERTIFICATE_TABLE + 4) !== 0)
    throw new Error("the PE image is signed already");
  return Buffer.concat([pe, Buffer.alloc(alignUp(pe.length, 8) - pe.length)]);
}

export function attachSignature(padded: Buffer, signature: Buffer): Buffer {
  const l = layout(padded);
  const length = 8 + signature.length;
  const entry = Buffer.alloc(alignUp(length, 8));
  entry.writeUInt32LE(length, 0);
  entry.writeUInt16LE(0x0200, 4); // WIN_CERT_REVISION_2_0
  entry.writeUInt16LE(0x0002, 6); // WIN_CERT_TYPE_PKCS_SIGNED_DATA
  signature.copy(entry, 8);
  const out = Buffer.concat([padded, entry]);
  out.writeUInt32LE(padded.length, l.optional + CERTIFICATE_TABLE);
  out.writeUInt32LE(entry.length, l.optional + CERTIFICATE_TABLE + 4);
  out.writeUInt32LE(peChecksum(out, l.optional), l.optional + CHECKSUM);
  return out;
}

/** The signature's ContentInfo in a signed image, or undefined. */
export function findSignature(pe: Buffer): Buffer | undefined {
  const directory = layout(pe).optional + CERTIFICATE_TABLE;
  const at = pe.readUInt32LE(directory);
  const size = pe.readUInt32LE(directory + 4);
  if (size < 8 || at + size > pe.length) return undefined;
  return pe.subarray(at + 8, at + pe.readUInt32LE(at));
}

// The PE checksum (imagehlp's CheckSumMappedFile): 16-bit one's-complement-style sum of the
// file's words without the checksum field, plus the file's length.
function peChecksum(pe: Buffer, optional: number): number {
  let sum = 0;
  const skip = optional + CHECKSUM;
  for (let i = 0; i < pe.length; i += 2) {
    if (i === skip || i === skip + 2) continue;
    const word = i + 1 < pe.length ? pe.readUInt16LE(i) : (pe[i] as number);
    sum += word;
    sum = (sum & 0xffff) + (sum >>> 16);
  }
  return (sum + pe.length) >>> 0;
}
