// A small reader for gzip-compressed tar archives (npm tarballs): finds one member and
// streams it to a file, so the 150 MB Node.js package never sits in memory whole.

import { once } from "node:events";
import { createReadStream, createWriteStream } from "node:fs";
import { finished } from "node:stream/promises";
import { createGunzip } from "node:zlib";

const BLOCK = 512;

/** Bytes from an async iterator of chunks, consumed in exact amounts. */
class ChunkReader {
  private buffered: Buffer[] = [];
  private length = 0;
  constructor(private readonly source: AsyncIterator<Buffer>) {}

  private async fill(n: number): Promise<boolean> {
    while (this.length < n) {
      const next = await this.source.next();
      if (next.done) return false;
      this.buffered.push(next.value);
      this.length += next.value.length;
    }
    return true;
  }

  /** The next `n` bytes, or undefined at the end of the stream. */
  async read(n: number): Promise<Buffer | undefined> {
    if (!(await this.fill(n))) return undefined;
    const all = Buffer.concat(this.buffered);
    this.buffered = [all.subarray(n)];
    this.length = all.length - n;
    return all.subarray(0, n);
  }

  /** Passes the next `n` bytes to `sink` (or drops them), chunk by chunk. */
  async pass(n: number, sink?: (chunk: Buffer) => Promise<void>): Promise<void> {
    let left = n;
    while (left > 0) {
      if (this.length === 0 && !(await this.fill(1))) throw new Error("tar archive ends early");
      const chunk = this.buffered.shift()!;
      const take = Math.min(left, chunk.length);
      if (take < chunk.length) this.buffered.unshift(chunk.subarray(take));
      this.length -= take;
      left -= take;
      if (sink) await sink(chunk.subarray(0, take));
    }
  }
}

function field(header: Buffer, offset: number, length: number): string {
  const raw = header.subarray(offset, offset + length);
  const end = raw.indexOf(0);
  return raw.subarray(0, end < 0 ? length : end).toString("utf8");
}

function octal(header: Buffer, offset: number, length: number): number {
  if ((header[offset]! & 0x80) !== 0) return Number(header.readBigUInt64BE(offset + length - 8));
  return Number.parseInt(field(header, offset, length).trim() || "0", 8);
}

/** The `path=` record of a pax extended header, if any. */
function paxPath(data: Buffer): string | undefined {
  for (const record of data.toString("utf8").split("\n")) {
    const m = /^\d+ path=(.*)$/.exec(record);
    if (m) return m[1];
  }
  return undefined;
}

/**
 * Writes the regular file `member` (its path in the archive) of the .tgz `archive` to
 * `dest`; false when the archive has no such file.
 */
export async function extractTarMember(
  archive: string,
  member: string,
  dest: string,
): Promise<boolean> {
  const stream = createReadStream(archive).pipe(createGunzip());
  const reader = new ChunkReader(stream[Symbol.asyncIterator]());
  let longName: string | undefined;
  try {
    for (;;) {
      const header = await reader.read(BLOCK);
      if (header === undefined || header.every((b) => b === 0)) return false;
      const size = octal(header, 124, 12);
      const type = String.fromCharCode(header[156]!);
      const padded = Math.ceil(size / BLOCK) * BLOCK;
      if (type === "x" || type === "L") {
        const data = (await reader.read(padded)) ?? Buffer.alloc(0);
        longName = type === "x" ? paxPath(data.subarray(0, size)) : field(data, 0, size);
        continue;
      }
      const prefix = field(header, 345, 155);
      const name =
        longName ?? (prefix ? `${prefix}/${field(header, 0, 100)}` : field(header, 0, 100));
      longName = undefined;
      if ((type === "0" || type === "\0") && name.replace(/^\.\//, "") === member) {
        const out = createWriteStream(dest, { mode: 0o644 });
        await reader.pass(size, async (chunk) => {
          if (!out.write(chunk)) await once(out, "drain");
        });
        out.end();
        await finished(out);
        return true;
      }
      await reader.pass(padded);
    }
  } finally {
    stream.destroy();
  }
}
