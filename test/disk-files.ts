// Sparse disk image files for tests, and a digest of their contents that reads a
// multi-GiB sparse file in about a second.
import { createHash } from "node:crypto";
import { createReadStream } from "node:fs";
import { truncate, writeFile } from "node:fs/promises";

const CHUNK = 4 * 1024 * 1024;

/** A new all-zero sparse file of `size` bytes at `path`. */
export async function sparseFile(path: string, size: number): Promise<string> {
  await writeFile(path, "");
  await truncate(path, size);
  return path;
}

/** The sha256 of the file's contents, each all-zero 4 MiB chunk counted rather than hashed: same bytes, same digest. */
export async function contentDigest(file: string): Promise<string> {
  const hash = createHash("sha256");
  const zeros = Buffer.alloc(CHUNK);
  let index = 0;
  for await (const chunk of createReadStream(file, { highWaterMark: CHUNK })) {
    const b = chunk as Buffer;
    hash.update(
      b.equals(zeros.subarray(0, b.length))
        ? `zeros:${index}:${b.length};`
        : Buffer.concat([Buffer.from(`data:${index};`), b]),
    );
    index++;
  }
  return hash.digest("hex");
}
