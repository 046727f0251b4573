// Sparse disk image files for tests, and a digest of their contents that reads a
// multi-GiB sparse file in about a second.
import { createHash } from "node:crypto";
import { createReadStream } from "node:fs";
import { mkdir, truncate, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { run } from "../tools/exec.ts";

const CHUNK = 4 * 1024 * 1024;

/** A new all-zero sparse file of `size` bytes at `path`. */
export async function sparseFile(path: string, size: number): Promise<string> {
  await writeFile(path, "");
  await truncate(path, size);
  return path;
}

const MIB = 1024 * 1024;
const GIB = 1024 * MIB;

/**
 * Someone's data at `path`: a 1 GiB disk whose GPT's one partition, at 1 MiB, holds an ext4
 * labelled `label` with a file in it (made from a folder beside the disk).
 */
export async function ext4DataDisk(path: string, label = "olddata"): Promise<string> {
  const files = `${path}.files`;
  await mkdir(files, { recursive: true });
  await writeFile(join(files, "keep-me.txt"), "data liken did not write\n");
  await sparseFile(path, GIB);
  const sectors = (GIB - 2 * MIB) / 512;
  await run("sfdisk", ["--quiet", path], {
    input: `label: gpt\nstart=2048, size=${sectors}, type=linux\n`,
  });
  const offset = ["-E", `offset=${MIB}`];
  await run("mkfs.ext4", ["-q", "-F", "-L", label, ...offset, "-d", files, path, "1046528k"]);
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
