// Copies an image file into a region of the target disk through the installer's own
// (exclusive) file handle, writing only the blocks that hold data, like bmaptool does.
import { createHash } from "node:crypto";
import { channel } from "node:diagnostics_channel";
import { type FileHandle, open } from "node:fs/promises";
import { MIB } from "../common/size.ts";

const CHUNK = 4 * MIB;
const BLOCK = 64 * 1024;

/**
 * Where writeImage() says how far it is, after each run of blocks it writes: for whoever
 * watches from inside the process (node:diagnostics_channel; the install tests' kill points).
 */
export const WRITE_IMAGE_CHANNEL = "liken:write-image";
export interface WriteImageMessage {
  /** Bytes this writeImage() call has written so far. */
  readonly written: number;
}
const written$ = channel(WRITE_IMAGE_CHANNEL);

export interface WriteImageOptions {
  readonly onProgress?: (done: number, total: number) => void;
}

/**
 * Writes `source` at `offset` of `target` so the region reads back as the image byte for
 * byte; returns the bytes written. Blocks of zeros are not written where the disk already
 * holds zeros: a blank disk is zero only at its edges, and a fresh filesystem's zeroed
 * bitmaps and tables must not land on old data.
 */
export async function writeImage(
  target: FileHandle,
  source: string,
  offset: number,
  options: WriteImageOptions = {},
): Promise<number> {
  const input = await open(source, "r");
  try {
    const total = (await input.stat()).size;
    const buffer = Buffer.alloc(CHUNK);
    const existing = Buffer.alloc(CHUNK);
    let written = 0;
    for (let pos = 0; pos < total; pos += CHUNK) {
      const { bytesRead } = await input.read(buffer, 0, Math.min(CHUNK, total - pos), pos);
      // What the disk holds there, read once per chunk, only when the chunk has zero blocks.
      let there: Buffer | undefined;
      const disk = async () => {
        if (!there) {
          there = existing.subarray(0, bytesRead);
          await target.read(there, 0, bytesRead, offset + pos);
        }
        return there;
      };
      // Consecutive blocks that must be written go out as one write.
      let runStart = -1;
      for (let b = 0; b < bytesRead + BLOCK; b += BLOCK) {
        const end = Math.min(b + BLOCK, bytesRead);
        let write = false;
        if (b < bytesRead) {
          write = !isZero(buffer.subarray(b, end)) || !isZero((await disk()).subarray(b, end));
        }
        if (write && runStart < 0) runStart = b;
        if (!write && runStart >= 0) {
          written += await writeAll(
            target,
            buffer.subarray(runStart, Math.min(b, bytesRead)),
            offset + pos + runStart,
          );
          runStart = -1;
          if (written$.hasSubscribers) written$.publish({ written } satisfies WriteImageMessage);
        }
      }
      options.onProgress?.(Math.min(pos + CHUNK, total), total);
    }
    return written;
  } finally {
    await input.close();
  }
}

/** The sha256 of `length` bytes at `offset` of `target`, read back from the disk. */
export async function hashRegion(
  target: FileHandle,
  offset: number,
  length: number,
): Promise<string> {
  const hash = createHash("sha256");
  const buffer = Buffer.alloc(CHUNK);
  for (let pos = 0; pos < length; pos += CHUNK) {
    const n = Math.min(CHUNK, length - pos);
    const { bytesRead } = await target.read(buffer, 0, n, offset + pos);
    if (bytesRead !== n)
      throw new Error(`short read at byte ${offset + pos}: ${bytesRead} of ${n}`);
    hash.update(buffer.subarray(0, n));
  }
  return hash.digest("hex");
}

/** Copies `length` bytes at `fromOffset` of `from` to `toOffset` of `to` (disk to disk, unflushed). */
export async function copyRegion(
  from: FileHandle,
  fromOffset: number,
  to: FileHandle,
  toOffset: number,
  length: number,
): Promise<void> {
  const buffer = Buffer.alloc(Math.min(CHUNK, length));
  for (let pos = 0; pos < length; pos += buffer.length) {
    const n = Math.min(buffer.length, length - pos);
    const { bytesRead } = await from.read(buffer, 0, n, fromOffset + pos);
    if (bytesRead !== n)
      throw new Error(`short read at byte ${fromOffset + pos}: ${bytesRead} of ${n}`);
    await writeAll(to, buffer.subarray(0, n), toOffset + pos);
  }
}

/** Writes zeros over `length` bytes at `offset`. */
export async function zeroRegion(
  target: FileHandle,
  offset: number,
  length: number,
): Promise<void> {
  const zeros = Buffer.alloc(Math.min(CHUNK, length));
  for (let pos = 0; pos < length; pos += zeros.length) {
    await writeAll(target, zeros.subarray(0, Math.min(zeros.length, length - pos)), offset + pos);
  }
}

async function writeAll(target: FileHandle, data: Buffer, position: number): Promise<number> {
  let done = 0;
  while (done < data.length) {
    const { bytesWritten } = await target.write(data, done, data.length - done, position + done);
    done += bytesWritten;
  }
  return data.length;
}

const ZEROS = Buffer.alloc(CHUNK);

/** Whether every byte is zero (memcmp against zeros: far faster than a loop in JavaScript). */
export function isZero(b: Buffer): boolean {
  for (let at = 0; at < b.length; at += ZEROS.length) {
    const part = b.subarray(at, at + ZEROS.length);
    if (!part.equals(ZEROS.subarray(0, part.length))) return false;
  }
  return true;
}
