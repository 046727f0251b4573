// The Debian packages the images are built from, pinned per arch in
// image-build/packages.lock.json (amd64) and packages.arm64.lock.json (written by
// scripts/lock-packages.ts): fetched with apt-get download into a cache outside git (one
// folder for both arches: a file's name carries its arch, and an `all` package is the same
// bytes for both), verified by size and sha256 every time they are used, unpacked with
// dpkg-deb.
import { mkdir, mkdtemp, readFile, rename, rm, stat } from "node:fs/promises";
import { join } from "node:path";
import type { Arch } from "../../common/arch.ts";
import { LikenError } from "../../common/errors.ts";
import { NO_PROGRESS, type Progress } from "../../common/progress.ts";
import { repoRoot } from "../../common/repo-root.ts";
import { formatSizeShort } from "../../common/size.ts";
import { downloadDebs } from "../../tools/apt.ts";
import { extractDeb } from "../../tools/dpkg-deb.ts";
import { defaultCacheDir, findFileDigest, hasDigest } from "./cache.ts";
import { watchFolderBytes } from "./folder-bytes.ts";
import { type Component, PRIVATE_ARCHES, withArchApt, withComponentApt } from "./private-apt.ts";
import { toolSaid } from "./tool-said.ts";

export { toolSaid } from "./tool-said.ts";

/** One entry of packages.lock.json. */
export interface LockedDeb {
  readonly name: string;
  readonly version: string;
  readonly arch: string;
  /** The name apt-get download gives the file (an epoch's colon is `%3a`). */
  readonly filename: string;
  readonly sha256: string;
  readonly size: number;
  /**
   * The archive component, when not one the host's sources are expected to list (`main`):
   * the package is looked up and downloaded through a private apt (private-apt.ts).
   */
  readonly component?: Component;
}

// Paths in the checkout are functions, not constants: a bundle that carries this module
// but never builds (the test command run as nobody from /tmp) must load outside a checkout.

/** What the images need from Debian and Node.js (edited by hand). */
export function packagesJsonPath(): string {
  return join(repoRoot(), "image-build", "packages.json");
}

/** The lock file of an arch's packages, relative to the checkout (amd64's kept its old name). */
export function packagesLockName(arch: Arch): string {
  return arch === "amd64"
    ? "image-build/packages.lock.json"
    : `image-build/packages.${arch}.lock.json`;
}

/** The lock file of an arch's packages. */
export function packagesLockPath(arch: Arch): string {
  return join(repoRoot(), packagesLockName(arch));
}

/** The command that pins an arch's packages again. */
export function relockCommand(arch: Arch): string {
  return `npx tsx scripts/lock-packages.ts${arch === "amd64" ? "" : ` --arch ${arch}`}`;
}

export async function readPackagesLock(file = packagesLockPath("amd64")): Promise<LockedDeb[]> {
  return JSON.parse(await readFile(file, "utf8")) as LockedDeb[];
}

/**
 * Every package of the arch's lock file as a verified .deb in the cache, by package name.
 * Cached files are used when their sha256 matches; the others are downloaded with apt-get.
 */
export async function requireDebianPackages(
  cacheDir: string = defaultCacheDir("debs"),
  progress: Progress = NO_PROGRESS,
  arch: Arch = "amd64",
): Promise<Map<string, string>> {
  const lock = await readPackagesLock(packagesLockPath(arch));
  return await fetchDebs(lock, cacheDir, progress, arch);
}

/**
 * The entries of `arch`'s lock as verified .debs in `cacheDir`. Exported for
 * scripts/lock-packages.ts, which passes the hashes from apt's signed index.
 */
export async function fetchDebs(
  entries: readonly LockedDeb[],
  cacheDir: string,
  progress: Progress = NO_PROGRESS,
  arch: Arch = "amd64",
): Promise<Map<string, string>> {
  const lockName = packagesLockName(arch);
  const relock = relockCommand(arch);
  await mkdir(cacheDir, { recursive: true });
  const paths = new Map(entries.map((e) => [e.name, join(cacheDir, e.filename)]));
  const cached = await Promise.all(
    entries.map((e) => hasDigest(paths.get(e.name)!, e.size, e.sha256)),
  );
  const missing = entries.filter((_, i) => !cached[i]);
  if (missing.length === 0) return paths;

  // Download into a private folder, then rename each verified file into place: a build
  // running beside this one never sees a half-written .deb.
  const staging = await mkdtemp(join(cacheDir, ".download-"));
  const total = missing.reduce((sum, e) => sum + e.size, 0);
  progress.step(`downloading ${missing.length} Debian packages, ${formatSizeShort(total)}`);
  const watch = watchFolderBytes(staging, (bytes) =>
    progress.amount(Math.min(bytes, total), total, "bytes"),
  );
  try {
    if (PRIVATE_ARCHES.includes(arch))
      // The host's apt has no lists of this arch: every package comes privately.
      await withArchApt(arch, staging, (options) => downloadDebs(missing, staging, options)).catch(
        (error: unknown) => {
          if (error instanceof LikenError) throw error; // the lists did not update: it says why
          throw downloadFailed(missing, `check that deb.debian.org serves ${arch}`, relock, error);
        },
      );
    else await downloadFromHost(missing, staging, relock);
    for (const entry of missing) {
      const file = join(staging, entry.filename);
      const got = await findFileDigest(file);
      if (got === undefined)
        throw new LikenError({
          kind: "failed",
          what: `apt-get download of ${entry.name}=${entry.version} wrote no ${entry.filename}`,
          hint: `check its architecture (${entry.arch}) in ${lockName}, or run ${relock}`,
        });
      if (got.sha256 !== entry.sha256 || got.size !== entry.size)
        throw new LikenError({
          kind: "failed",
          what: `the Debian package ${entry.name} ${entry.version} has sha256 ${got.sha256} (${got.size} bytes), but ${lockName} pins sha256 ${entry.sha256} (${entry.size} bytes)`,
          hint: `the mirror serves other bytes for this version: check the mirror${PRIVATE_ARCHES.includes(arch) ? " (deb.debian.org)" : " in /etc/apt/sources.list"}; to accept what it serves now, run ${relock} and review the lock file's diff`,
        });
      await rename(file, paths.get(entry.name)!);
    }
  } finally {
    await watch.stop();
    await rm(staging, { recursive: true, force: true });
  }
  return paths;
}

/** amd64's packages: from the host's apt, but a component its sources may lack privately. */
async function downloadFromHost(
  missing: readonly LockedDeb[],
  staging: string,
  relock: string,
): Promise<void> {
  const fromHost = missing.filter((e) => e.component === undefined);
  await downloadDebs(fromHost, staging).catch((error: unknown) => {
    throw downloadFailed(fromHost, "check the Debian mirror and run apt-get update", relock, error);
  });
  for (const component of new Set(missing.flatMap((e) => e.component ?? []))) {
    const these = missing.filter((e) => e.component === component);
    await withComponentApt(component, staging, (options) =>
      downloadDebs(these, staging, options),
    ).catch((error: unknown) => {
      if (error instanceof LikenError) throw error; // the lists did not update: it says why
      throw downloadFailed(these, `check that deb.debian.org serves ${component}`, relock, error);
    });
  }
}

function downloadFailed(
  entries: readonly LockedDeb[],
  check: string,
  relock: string,
  error: unknown,
): LikenError {
  return new LikenError({
    kind: "failed",
    what: `apt-get could not download ${entries.map((e) => `${e.name}=${e.version}`).join(" ")}${toolSaid(error)}`,
    hint: `${check}; if the mirror no longer offers these versions, run ${relock}`,
    cause: error,
  });
}

/** Unpacks the files of every .deb into `destDir` (no maintainer scripts run). */
export async function unpackDebs(
  debPaths: readonly string[],
  destDir: string,
  progress: Progress = NO_PROGRESS,
): Promise<void> {
  progress.step(`unpacking ${debPaths.length} Debian packages`);
  let unpacked = 0;
  await mkdir(destDir, { recursive: true });
  // Two dpkg-deb at a time, largest first: the kernel package alone takes some 3 s, and the
  // small ones all unpack beside it.
  const sizes = new Map(
    await Promise.all(debPaths.map(async (p) => [p, (await stat(p)).size] as const)),
  );
  const queue = [...debPaths].sort((a, b) => sizes.get(b)! - sizes.get(a)!);
  const worker = async () => {
    for (let deb = queue.shift(); deb; deb = queue.shift()) {
      await extractDeb(deb, destDir);
      progress.amount(++unpacked, debPaths.length, "items");
    }
  };
  await Promise.all([worker(), worker()]);
}
