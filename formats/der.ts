// Just enough ASN.1 DER (ITU-T X.690) to write the PKCS #7 structures Secure Boot takes and
// to find the fields of an X.509 certificate they name. Every value is a TLV; writers return
// the whole encoding, so structures nest by concatenation.

function length(n: number): Buffer {
  if (n < 0x80) return Buffer.from([n]);
  const bytes: number[] = [];
  for (let v = n; v > 0; v = Math.floor(v / 256)) bytes.unshift(v & 0xff);
  return Buffer.from([0x80 | bytes.length, ...bytes]);
}

export function tlv(tag: number, ...content: readonly Uint8Array[]): Buffer {
  const body = Buffer.concat(content);
  return Buffer.concat([Buffer.from([tag]), length(body.length), body]);
}

export const sequence = (...items: readonly Uint8Array[]) => tlv(0x30, ...items);
/** A SET OF: DER sorts its members by their encodings (X.690 11.6). */
export const set = (...items: readonly Uint8Array[]) =>
  tlv(0x31, ...[...items].sort((a, b) => Buffer.compare(a, b)));
export const octetString = (bytes: Uint8Array) => tlv(0x04, bytes);
export const nullValue = () => tlv(0x05);
/** A [n] EXPLICIT wrapper (constructed, context-specific). */
export const explicit = (n: number, ...content: readonly Uint8Array[]) => tlv(0xa0 | n, ...content);

export function integer(value: number): Buffer {
  const bytes: number[] = [];
  for (let v = value; bytes.length === 0 || v > 0; v = Math.floor(v / 256)) bytes.unshift(v & 0xff);
  if ((bytes[0] as number) & 0x80) bytes.unshift(0);
  return tlv(0x02, Buffer.from(bytes));
}

export function oid(dotted: string): Buffer {
  const [first = 0, second = 0, ...rest] = dotted.split(".").map(Number);
  const bytes: number[] = [first * 40 + second];
  for (const arc of rest) {
    const chunk: number[] = [arc & 0x7f];
    for (let v = Math.floor(arc / 128); v > 0; v = Math.floor(v / 128))
      chunk.unshift(0x80 | (v & 0x7f));
    bytes.push(...chunk);
  }
  return tlv(0x06, Buffer.from(bytes));
}

export const OID = {
  data: "1.2.840.113549.1.7.1",
  signedData: "1.2.840.113549.1.7.2",
  contentType: "1.2.840.113549.1.9.3",
  messageDigest: "1.2.840.113549.1.9.4",
  sha256: "2.16.840.1.101.3.4.2.1",
  rsaEncryption: "1.2.840.113549.1.1.1",
  /** Authenticode (Microsoft, "Windows Authenticode Portable Executable Signature Format"). */
  spcIndirectData: "1.3.6.1.4.1.311.2.1.4",
  spcPeImageData: "1.3.6.1.4.1.311.2.1.15",
  spcSpOpusInfo: "1.3.6.1.4.1.311.2.1.12",
} as const;

/** One TLV read back: where its content is, and the whole encoding. */
export interface Element {
  readonly tag: number;
  readonly content: Buffer;
  readonly encoded: Buffer;
}

/** DER that does not decode: what a reader of a signature or certificate refuses. */
export class DerError extends Error {
  override readonly name = "DerError";
}

/** The TLV at `at`; a DerError when the bytes are not one. */
export function readElement(der: Buffer, at = 0): Element {
  const tag = der[at];
  let len = der[at + 1];
  if (tag === undefined || len === undefined) throw new DerError("DER ends inside a header");
  let start = at + 2;
  if (len & 0x80) {
    const count = len & 0x7f;
    if (count === 0 || count > 4) throw new DerError(`DER length of ${count} bytes`);
    // A length cut off by the end was a RangeError from readUIntBE (der.fuzz.test.ts).
    if (start + count > der.length) throw new DerError("DER ends inside a length");
    len = der.readUIntBE(start, count);
    start += count;
  }
  const end = start + len;
  if (end > der.length) throw new DerError("DER value runs past its end");
  return { tag, content: der.subarray(start, end), encoded: der.subarray(at, end) };
}

/** The TLVs a constructed value holds, in order. */
export function children(element: Element): Element[] {
  const out: Element[] = [];
  for (let at = 0; at < element.content.length; ) {
    const child = readElement(element.content, at);
    out.push(child);
    at += child.encoded.length;
  }
  return out;
}
