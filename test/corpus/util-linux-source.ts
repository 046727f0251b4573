// util-linux's own blkid test images (tests/ts/blkid/images-fs and images-pt), taken from
// the Debian source package of the util-linux that Debian 12 ships, pinned in
// test/corpus/util-linux.lock.json: the .dsc by its sha256, the upstream tarball by the
// sha256 the .dsc lists. apt-get fetches them through a private apt (its own sources.list,
// package lists and cache, under the liken cache), so the host needs no deb-src line.
//
// The cache (${LIKEN_CACHE:-~/.cache/liken-stick}/util-linux-source) keeps the verified
// .dsc and tarball, and the images taken out of it in `blkid-images-<version>/`, with a
// stamp listing each image's sha256. When the stamp matches, no apt-get and no tar runs.
import { createHash, randomBytes } from "node:crypto";
import { mkdir, mkdtemp, readdir, readFile, rename, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { LikenError } from "../../common/errors.ts";
import { repoRoot } from "../../common/repo-root.ts";
import { defaultCacheDir, findFileDigest, hasDigest } from "../../image-build/inputs/cache.ts";
import { downloadSourcePackage, updatePrivateLists } from "../../tools/apt.ts";
import { CommandError } from "../../tools/exec.ts";
import { extractXzMembers } from "../../tools/tar.ts";

/** test/corpus/util-linux.lock.json */
export interface UtilLinuxLock {
  readonly package: string;
  /** The Debian version: `2.38.1-5+deb12u3`. */
  readonly version: string;
  /** The private apt's sources.list lines (deb-src, signed-by the Debian archive keyring). */
  readonly sources: readonly string[];
  readonly dsc: { readonly filename: string; readonly sha256: string };
  /** The folder of images-fs/ and images-pt/ inside the upstream tarball. */
  readonly imagesPath: string;
  /** How many *.img.xz the two folders hold together. */
  readonly images: number;
}

/** One line of a .dsc's Checksums-Sha256 field. */
export interface DscFile {
  readonly sha256: string;
  readonly size: number;
  readonly name: string;
}

export const UTIL_LINUX_LOCK = join(repoRoot(), "test", "corpus", "util-linux.lock.json");
const LOCK_NAME = "test/corpus/util-linux.lock.json";
const REFRESH = "see docs/disks.md, 'The disk corpus', to refresh the pin";
/** The image folders, as the images' `kind` names them. */
export const IMAGE_KINDS = ["fs", "pt"] as const;
const STAMP = ".images.json";

export async function readUtilLinuxLock(file = UTIL_LINUX_LOCK): Promise<UtilLinuxLock> {
  return JSON.parse(await readFile(file, "utf8")) as UtilLinuxLock;
}

/**
 * The folder of the pinned blkid images (`images-fs/*.img.xz`, `images-pt/*.img.xz`),
 * fetched and taken out of the source package when the cache does not hold them yet.
 * Throws a LikenError that says what failed and what to do.
 */
export async function requireUtilLinuxBlkidImages(
  cacheDir: string = defaultCacheDir("util-linux-source"),
  lock?: UtilLinuxLock,
): Promise<string> {
  const pin = lock ?? (await readUtilLinuxLock());
  const imagesDir = join(cacheDir, `blkid-images-${pin.version}`);
  if (await isExtracted(imagesDir, pin)) return imagesDir;
  await mkdir(cacheDir, { recursive: true });
  const tarball = await requireSourceTarball(pin, cacheDir);
  await extractImages(tarball, pin, cacheDir, imagesDir);
  return imagesDir;
}

/**
 * The files of a .dsc's Checksums-Sha256 field (the .dsc may be PGP clear-signed: the
 * field is read from the signed text). Throws when the field is missing or malformed.
 */
export function parseDscChecksums(text: string): DscFile[] {
  const lines = text.split("\n");
  const start = lines.findIndex((l) => /^Checksums-Sha256:\s*$/.test(l));
  if (start < 0) throw new Error("the .dsc has no Checksums-Sha256 field");
  const files: DscFile[] = [];
  for (const line of lines.slice(start + 1)) {
    if (!/^[ \t]/.test(line)) break; // the field's continuation lines start with a space
    if (line.trim() === "") continue;
    const m = /^\s+([0-9a-f]{64})\s+(\d+)\s+(\S+)\s*$/.exec(line);
    if (!m) throw new Error(`a malformed Checksums-Sha256 line in the .dsc: ${line.trim()}`);
    files.push({ sha256: m[1]!, size: Number(m[2]), name: m[3]! });
  }
  if (files.length === 0) throw new Error("the .dsc's Checksums-Sha256 field lists no file");
  return files;
}

/** The upstream tarball among a .dsc's files: `<name>_<upstream>.orig.tar.xz`. */
export function origTarball(files: readonly DscFile[], dscName: string): DscFile {
  const orig = files.filter((f) => /\.orig\.tar\.xz$/.test(f.name));
  if (orig.length !== 1)
    throw new LikenError({
      kind: "failed",
      what: `${dscName} lists ${orig.length} .orig.tar.xz files (${files.map((f) => f.name).join(", ")}), not one`,
      hint: `pin a version whose upstream tarball is one .orig.tar.xz in ${LOCK_NAME} (${REFRESH})`,
    });
  return orig[0]!;
}

/** The verified upstream tarball in the cache, fetched with apt-get source if needed. */
async function requireSourceTarball(lock: UtilLinuxLock, cacheDir: string): Promise<string> {
  const dscPath = join(cacheDir, lock.dsc.filename);
  const cached = await findFileDigest(dscPath);
  if (cached?.sha256 === lock.dsc.sha256) {
    const orig = origTarball(parseDscChecksums(await readFile(dscPath, "utf8")), dscPath);
    const origPath = join(cacheDir, orig.name);
    if (await hasDigest(origPath, orig.size, orig.sha256)) return origPath;
  }
  return await fetchSourcePackage(lock, cacheDir);
}

/**
 * apt-get update and apt-get source --download-only through a private apt, in a folder of
 * its own under the cache (removed afterwards); the .dsc and the tarball are renamed into
 * the cache once verified, so a run beside this one never sees a half-written file.
 */
async function fetchSourcePackage(lock: UtilLinuxLock, cacheDir: string): Promise<string> {
  const spec = `${lock.package}=${lock.version}`;
  const staging = await mkdtemp(join(cacheDir, ".fetch-"));
  try {
    const aptDir = join(staging, "apt");
    const download = join(staging, "download");
    await mkdir(download, { recursive: true });
    await updatePrivateLists(aptDir, `${lock.sources.join("\n")}\n`).catch((error: unknown) => {
      throw new LikenError({
        kind: "failed",
        what: `apt-get update of the private source lists for ${spec} failed${firstSaid(error)}`,
        hint: `check that deb.debian.org is reachable (apt's proxy settings apply) and that /usr/share/keyrings/debian-archive-keyring.gpg exists (run npm run setup), then run the tests again`,
        cause: error,
      });
    });
    await downloadSourcePackage(
      aptDir,
      { name: lock.package, version: lock.version },
      download,
    ).catch((error: unknown) => {
      throw new LikenError({
        kind: "failed",
        what: `apt-get source could not download ${spec}${firstSaid(error)}`,
        hint: `the Debian archive may no longer offer this version: pin the version Debian 12 offers now in ${LOCK_NAME} (${REFRESH})`,
        cause: error,
      });
    });
    const dsc = await findFileDigest(join(download, lock.dsc.filename));
    if (!dsc)
      throw new LikenError({
        kind: "failed",
        what: `apt-get source ${spec} wrote no ${lock.dsc.filename}`,
        hint: `check the dsc file name in ${LOCK_NAME} against the files apt-get source --download-only ${spec} writes`,
      });
    if (dsc.sha256 !== lock.dsc.sha256)
      throw new LikenError({
        kind: "failed",
        what: `the Debian source package ${spec} has a .dsc with sha256 ${dsc.sha256}, but ${LOCK_NAME} pins sha256 ${lock.dsc.sha256}`,
        hint: `the archive serves another .dsc for this version: to accept it, review it and put its sha256 in ${LOCK_NAME}`,
      });
    const dscText = await readFile(join(download, lock.dsc.filename), "utf8");
    const orig = origTarball(parseDscChecksums(dscText), lock.dsc.filename);
    const got = await findFileDigest(join(download, orig.name));
    if (!got || got.sha256 !== orig.sha256 || got.size !== orig.size)
      throw new LikenError({
        kind: "failed",
        what: got
          ? `${orig.name} of ${spec} has sha256 ${got.sha256} (${got.size} bytes), but its .dsc lists sha256 ${orig.sha256} (${orig.size} bytes)`
          : `apt-get source ${spec} wrote no ${orig.name}, which its .dsc lists`,
        hint: "the download is damaged or the mirror is inconsistent: run the tests again; if it persists, try another Debian mirror",
      });
    await rename(join(download, orig.name), join(cacheDir, orig.name));
    await rename(join(download, lock.dsc.filename), join(cacheDir, lock.dsc.filename));
    return join(cacheDir, orig.name);
  } finally {
    await rm(staging, { recursive: true, force: true });
  }
}

/**
 * `: <the tool's first error line>`: apt's first `E:` line names the cause (`Failed to
 * fetch ... Could not resolve`, `Unable to find a source package`) where its last one is a
 * summary; tar's first line names the pattern it did not find.
 */
function firstSaid(error: unknown): string {
  if (!(error instanceof CommandError) || !error.stderrTail) return "";
  const lines = error.stderrTail.split("\n");
  return `: ${lines.find((l) => l.startsWith("E:")) ?? lines[0]}`;
}

/** The stamp of an extracted images folder: where it came from and each image's sha256. */
interface Stamp {
  readonly dscSha256: string;
  readonly images: Record<string, string>;
}

/** True when `imagesDir` holds exactly the images its stamp lists, from this pin. */
async function isExtracted(imagesDir: string, lock: UtilLinuxLock): Promise<boolean> {
  const stamp = await readFile(join(imagesDir, STAMP), "utf8")
    .then((t) => JSON.parse(t) as Stamp)
    .catch(() => undefined);
  if (stamp?.dscSha256 !== lock.dsc.sha256) return false;
  const listed = await listImageFiles(imagesDir).catch(() => undefined);
  const want = Object.keys(stamp.images).sort();
  if (!listed || listed.length !== want.length || listed.some((f, i) => f !== want[i]))
    return false;
  const hashes = await Promise.all(listed.map((f) => sha256Small(join(imagesDir, f))));
  return hashes.every((h, i) => h === stamp.images[listed[i]!]);
}

/** The sha256 of a small file (an image is at most a few hundred KiB compressed), read whole. */
async function sha256Small(path: string): Promise<string> {
  return createHash("sha256")
    .update(await readFile(path))
    .digest("hex");
}

/** `images-fs/<name>.img.xz` and `images-pt/<name>.img.xz`, sorted. */
async function listImageFiles(imagesDir: string): Promise<string[]> {
  const out: string[] = [];
  for (const kind of IMAGE_KINDS) {
    const names = await readdir(join(imagesDir, `images-${kind}`)).catch(() => [] as string[]);
    for (const n of names.filter((x) => x.endsWith(".img.xz"))) out.push(`images-${kind}/${n}`);
  }
  return out.sort();
}

/**
 * Takes only the blkid images out of the tarball, into a private folder that is renamed
 * to `imagesDir` once complete and stamped: a reader sees all the images or none.
 */
async function extractImages(
  tarball: string,
  lock: UtilLinuxLock,
  cacheDir: string,
  imagesDir: string,
): Promise<void> {
  const partial = await mkdtemp(join(cacheDir, ".extract-"));
  try {
    const prefix = lock.imagesPath.replace(/\/+$/, "");
    await extractXzMembers(
      tarball,
      partial,
      IMAGE_KINDS.map((k) => `${prefix}/images-${k}/*.img.xz`),
      { stripComponents: prefix.split("/").length },
    ).catch((error: unknown) => {
      throw new LikenError({
        kind: "failed",
        what: `tar could not take ${prefix}/images-{fs,pt}/*.img.xz out of ${tarball}${firstSaid(error)}`,
        hint: `check imagesPath in ${LOCK_NAME} against the tarball (tar -tJf ${tarball}); if the tarball is damaged, delete it and run the tests again`,
        cause: error,
      });
    });
    const files = await listImageFiles(partial);
    if (files.length !== lock.images)
      throw new LikenError({
        kind: "failed",
        what: `${tarball} holds ${files.length} blkid images under ${prefix}, but ${LOCK_NAME} expects ${lock.images}`,
        hint: `set images in ${LOCK_NAME} to ${files.length} if the pinned version changed, else delete ${tarball} and run the tests again`,
      });
    const images: Record<string, string> = {};
    for (const f of files) images[f] = await sha256Small(join(partial, f));
    const stamp: Stamp = { dscSha256: lock.dsc.sha256, images };
    await writeFile(join(partial, STAMP), `${JSON.stringify(stamp, null, 2)}\n`);
    await moveIntoPlace(partial, imagesDir, lock);
  } finally {
    await rm(partial, { recursive: true, force: true });
  }
}

/**
 * Renames the complete folder `from` to `to`. A stale `to` (another pin, damaged) is moved
 * aside first; a valid `to` that a run beside this one put there just now is kept.
 */
async function moveIntoPlace(from: string, to: string, lock: UtilLinuxLock): Promise<void> {
  try {
    await rename(from, to);
    return;
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code !== "ENOTEMPTY" && code !== "EEXIST") throw error;
  }
  if (await isExtracted(to, lock)) return;
  const aside = `${to}.stale-${randomBytes(4).toString("hex")}`;
  await rename(to, aside);
  await rm(aside, { recursive: true, force: true });
  await rename(from, to);
}
