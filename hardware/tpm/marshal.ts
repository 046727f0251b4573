// The TPM's byte order and its sized buffers (TCG TPM 2.0 Library Part 1, "Command/Response
// Structure": every integer big-endian; Part 2, section 10.4: a TPM2B is a UINT16 size,
// then that many bytes). A Writer builds a command's fields; a Reader takes a response's
// apart and throws on a field that runs past the end, so a short answer is never read as
// zeros.

/** Appends TPM fields; `bytes()` is what was written. */
export class Writer {
  private readonly parts: Buffer[] = [];

  u8(value: number): this {
    return this.raw(Buffer.of(value));
  }

  u16(value: number): this {
    const part = Buffer.alloc(2);
    part.writeUInt16BE(value);
    return this.raw(part);
  }

  u32(value: number): this {
    const part = Buffer.alloc(4);
    part.writeUInt32BE(value >>> 0);
    return this.raw(part);
  }

  /** A TPM2B: the UINT16 size, then the bytes. */
  sized(bytes: Uint8Array): this {
    if (bytes.length > 0xffff)
      throw new RangeError(`a TPM2B holds at most 65535 bytes, not ${bytes.length}`);
    return this.u16(bytes.length).raw(bytes);
  }

  raw(bytes: Uint8Array): this {
    this.parts.push(Buffer.from(bytes));
    return this;
  }

  bytes(): Buffer {
    return Buffer.concat(this.parts);
  }
}

/** Builds a field with a Writer: `build((w) => w.u16(1).u32(2))`. */
export function build(fill: (writer: Writer) => unknown): Buffer {
  const writer = new Writer();
  fill(writer);
  return writer.bytes();
}

/** A response's bytes, read from the front. */
export class Reader {
  private offset = 0;

  constructor(private readonly buffer: Buffer) {}

  get remaining(): number {
    return this.buffer.length - this.offset;
  }

  u8(): number {
    return this.take(1).readUInt8();
  }

  u16(): number {
    return this.take(2).readUInt16BE();
  }

  u32(): number {
    return this.take(4).readUInt32BE();
  }

  /** A TPM2B's contents, without its size. */
  sized(): Buffer {
    return this.take(this.u16());
  }

  /** A TPM2B whole, its size included: what a later command takes back as it came. */
  sizedWhole(): Buffer {
    const start = this.offset;
    this.sized();
    return this.buffer.subarray(start, this.offset);
  }

  take(length: number): Buffer {
    if (length > this.remaining)
      throw new RangeError(`the answer ends ${length - this.remaining} bytes before its fields do`);
    const part = this.buffer.subarray(this.offset, this.offset + length);
    this.offset += length;
    return part;
  }
}
