// Where downloaded inputs live: outside git, shared by every checkout of the user.
// ${LIKEN_CACHE} when set, else ${XDG_CACHE_HOME:-~/.cache}/liken-stick.
import { createHash } from "node:crypto";
import { createReadStream } from "node:fs";
import { stat } from "node:fs/promises";
import { homedir } from "node:os";
import { join } from "node:path";
import { MIB } from "../../common/size.ts";

/** The cache folder for one kind of input (`debs`, `node`). */
export function defaultCacheDir(kind: string): string {
  const base =
    process.env.LIKEN_CACHE ||
    join(process.env.XDG_CACHE_HOME || join(homedir(), ".cache"), "liken-stick");
  return join(base, kind);
}

export async function sha256File(path: string): Promise<string> {
  const hash = createHash("sha256");
  for await (const chunk of createReadStream(path, { highWaterMark: 4 * MIB }))
    hash.update(chunk as Buffer);
  return hash.digest("hex");
}

/** The size and sha256 of a file, or undefined when it does not exist. */
export async function findFileDigest(
  path: string,
): Promise<{ size: number; sha256: string } | undefined> {
  // A file that is not there has no digest: undefined, as documented.
  const info = await stat(path).catch(() => undefined);
  if (!info?.isFile()) return undefined;
  return { size: info.size, sha256: await sha256File(path) };
}

/** True when `path` exists with exactly this size and sha256 (the size is checked first: cheap). */
export async function hasDigest(path: string, size: number, sha256: string): Promise<boolean> {
  // A file that is not there does not have the digest.
  const info = await stat(path).catch(() => undefined);
  if (!info?.isFile() || info.size !== size) return false;
  return (await sha256File(path)) === sha256;
}
