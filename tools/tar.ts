// tar(1): takes some members out of a large .tar.xz (a Debian source package's upstream
// tarball) without unpacking the rest. GNU tar runs xz itself. The gzip'd npm tarballs are
// read in process instead (image-build/inputs/tar.ts).
import { run } from "./exec.ts";

/**
 * Extracts the members of the .tar.xz `archive` that match `patterns` (shell wildcards on
 * the member paths, `*` matching `/` too) into `destDir`, dropping the first
 * `stripComponents` folders of each path. A pattern that matches nothing is an error (tar's
 * "Not found in archive"). Files are owned by the caller, not by the archive's user ids.
 */
export async function extractXzMembers(
  archive: string,
  destDir: string,
  patterns: readonly string[],
  options: { readonly stripComponents?: number } = {},
): Promise<void> {
  await run(
    "tar",
    [
      "--extract",
      "--xz",
      `--file=${archive}`,
      `--directory=${destDir}`,
      `--strip-components=${options.stripComponents ?? 0}`,
      "--no-same-owner", // root would otherwise keep the tarball's uids
      "--wildcards", // the patterns are globs, not literal member names
      "--",
      ...patterns,
    ],
    { timeoutMs: 10 * 60_000 },
  );
}

/**
 * Writes `members` (paths relative to `dir`) into the uncompressed tar `archive`, owned by
 * root, as busybox tar in a guest reads it from a raw disk (its size is a multiple of 10240
 * bytes, whole sectors).
 */
export async function createTar(
  archive: string,
  dir: string,
  members: readonly string[],
): Promise<void> {
  await run("tar", [
    "--create",
    `--file=${archive}`,
    `--directory=${dir}`,
    "--owner=0",
    "--group=0",
    "--",
    ...members,
  ]);
}
