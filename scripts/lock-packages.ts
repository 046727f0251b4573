// Pins the image's inputs for each arch: every Debian package of image-build/packages.json
// (expanded for the arch: image-build/inputs/packages-spec.ts) at the version the mirror
// offers now (apt-cache policy's candidate), checked against the sha256 in apt's signed
// index and written to the arch's lock file (packages.lock.json for amd64,
// packages.arm64.lock.json for arm64); and the Node.js tarball of packages.json's "node"
// entry, written to node.lock.json (node.arm64.lock.json). amd64's packages come from the
// host's apt, but a package with a `component` (the firmware in non-free-firmware) through
// a private apt that lists it, since the host's sources may list only main; arm64's all come
// through a private apt whose only architecture is arm64, since the host's apt has no arm64
// lists (image-build/inputs/private-apt.ts). Downloads what it pins into the cache, so the
// next build starts warm.
//
//   npx tsx scripts/lock-packages.ts               (after apt-get update: both arches)
//   npx tsx scripts/lock-packages.ts --arch arm64  (one arch)
import { mkdir, readFile, writeFile } from "node:fs/promises";
import { join, relative } from "node:path";
import { parseArgs } from "node:util";
import { ARCHES, type Arch, isArch } from "../common/arch.ts";
import { LikenError } from "../common/errors.ts";
import { repoRoot } from "../common/repo-root.ts";
import { defaultCacheDir } from "../image-build/inputs/cache.ts";
import {
  fetchDebs,
  type LockedDeb,
  packagesJsonPath,
  packagesLockPath,
  readPackagesLock,
} from "../image-build/inputs/debian.ts";
import {
  extractBinary,
  fetchNodeTarball,
  type NodeLock,
  nodeLockPath,
} from "../image-build/inputs/node.ts";
import {
  type ArchPackages,
  type PackagesJson,
  packagesFor,
} from "../image-build/inputs/packages-spec.ts";
import {
  type Component,
  PRIVATE_ARCHES,
  withArchApt,
  withComponentApt,
} from "../image-build/inputs/private-apt.ts";
import { debFileName, findCandidateVersions, findDepends, showVersions } from "../tools/apt.ts";

type Wanted = ArchPackages["packages"][number];

function say(line: string): void {
  process.stderr.write(`lock-packages: ${line}\n`);
}

async function lockDebian(spec: ArchPackages): Promise<LockedDeb[]> {
  const debs = defaultCacheDir("debs");
  await mkdir(debs, { recursive: true });
  let entries: LockedDeb[];
  if (PRIVATE_ARCHES.includes(spec.arch)) {
    // The host's apt has no lists of this arch: everything through the arch's private apt.
    entries = await withArchApt(spec.arch, debs, async (options) => {
      await checkKernel(spec, options);
      return await lockFrom(spec.packages, options);
    });
  } else {
    await checkKernel(spec, []);
    entries = await lockFrom(
      spec.packages.filter((p) => p.component === undefined),
      [],
    );
    // Packages of a component the host's sources may lack: through a private apt that lists it.
    for (const component of new Set(spec.packages.flatMap((p) => p.component ?? []))) {
      const these = spec.packages.filter((p) => p.component === component);
      entries.push(
        ...(await withComponentApt(component, debs, (options) => lockFrom(these, options))),
      );
    }
  }
  // apt's index hashes are what the downloads are checked against: the lock records what
  // Debian signed, and a corrupt download fails here rather than being pinned.
  await fetchDebs(entries, debs, undefined, spec.arch);
  return entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}

/** Pins `wanted` at the candidate version of the apt that `aptOptions` select (the host's when empty). */
async function lockFrom(
  wanted: readonly Wanted[],
  aptOptions: readonly string[],
): Promise<LockedDeb[]> {
  const names = wanted.map((p) => p.name);
  const candidates = await findCandidateVersions(names, aptOptions);
  const none = wanted.filter((p) => candidates.get(p.name) === undefined);
  if (none.length > 0)
    throw new LikenError({
      kind: "failed",
      what: `the mirror offers no version of ${none.map((p) => `${p.name}${p.component ? ` (in ${p.component})` : ""}`).join(", ")}`,
      hint: "run apt-get update; if a package was renamed (a new kernel ABI), fix image-build/packages.json",
    });
  const records = await showVersions(
    names.map((name) => ({ name, version: candidates.get(name)! })),
    aptOptions,
  );
  return wanted.map(({ name, component }): LockedDeb => {
    const record = records.get(name);
    if (!record?.sha256 || !record.arch)
      throw new LikenError({
        kind: "failed",
        what: `apt-cache show ${name} gave no SHA256`,
        hint: "run apt-get update",
      });
    return {
      name,
      version: record.version,
      arch: record.arch,
      filename: debFileName(name, record.version, record.arch),
      sha256: record.sha256,
      size: record.size,
      ...(component ? { component: component as Component } : {}),
    };
  });
}

async function checkKernel(spec: ArchPackages, aptOptions: readonly string[]): Promise<void> {
  const wanted = (await findDepends(spec.kernelMetaPackage, aptOptions)).find((d) =>
    d.startsWith("linux-image-"),
  );
  const pinned = spec.packages.find((p) => p.name.startsWith("linux-image-"))?.name;
  if (wanted && wanted !== pinned)
    say(
      `warning: ${spec.kernelMetaPackage} now depends on ${wanted}, but image-build/packages.json pins ${pinned}: replace it there and run this again`,
    );
}

async function lockNode(spec: ArchPackages): Promise<NodeLock> {
  const cacheDir = defaultCacheDir("node");
  const { node } = spec;
  const tarball = await fetchNodeTarball(`${node.package}@${node.version}`, cacheDir);
  const binary = await extractBinary(
    tarball.path,
    node.binary,
    join(cacheDir, `${node.package}-${node.version}`, "node"),
    undefined,
    spec.arch,
  );
  return {
    package: node.package,
    version: node.version,
    filename: tarball.filename,
    size: tarball.size,
    sha256: tarball.sha256,
    integrity: tarball.integrity,
    binary: { path: node.binary, ...binary },
  };
}

function describeChanges(before: readonly LockedDeb[], after: readonly LockedDeb[]): string[] {
  const old = new Map(before.map((e) => [e.name, e]));
  const lines: string[] = [];
  for (const e of after) {
    const was = old.get(e.name);
    if (!was) lines.push(`+ ${e.name} ${e.version}`);
    else if (was.version !== e.version || was.sha256 !== e.sha256)
      lines.push(`~ ${e.name} ${was.version} -> ${e.version}`);
    old.delete(e.name);
  }
  for (const e of old.values()) lines.push(`- ${e.name} ${e.version}`);
  return lines;
}

async function lockArch(json: PackagesJson, arch: Arch): Promise<void> {
  const spec = packagesFor(json, arch);
  const lockFile = packagesLockPath(arch);
  const before = await readPackagesLock(lockFile).catch(() => []);
  const debs = await lockDebian(spec);
  await writeFile(lockFile, `${JSON.stringify(debs, null, 2)}\n`);
  const total = debs.reduce((sum, e) => sum + e.size, 0);
  say(
    `${arch}: ${debs.length} Debian packages, ${(total / 2 ** 20).toFixed(1)} MiB, in ${relative(repoRoot(), lockFile)}`,
  );
  for (const line of describeChanges(before, debs)) say(`  ${line}`);

  const node = await lockNode(spec);
  const nodeFile = nodeLockPath(arch);
  await writeFile(nodeFile, `${JSON.stringify(node, null, 2)}\n`);
  say(
    `${arch}: ${node.package}@${node.version}, ${(node.size / 2 ** 20).toFixed(1)} MiB (node ${(node.binary.size / 2 ** 20).toFixed(1)} MiB), in ${relative(repoRoot(), nodeFile)}`,
  );
}

function archesAsked(): Arch[] {
  const { values } = parseArgs({ options: { arch: { type: "string", multiple: true } } });
  const asked = values.arch ?? [...ARCHES];
  for (const a of asked)
    if (!isArch(a))
      throw new LikenError({
        kind: "usage",
        what: `--arch ${a} is not an arch liken builds for`,
        hint: `name ${ARCHES.join(" or ")}, or leave --arch out to lock both`,
      });
  return asked as Arch[];
}

async function main(): Promise<void> {
  const arches = archesAsked();
  const json = JSON.parse(await readFile(packagesJsonPath(), "utf8")) as PackagesJson;
  for (const arch of arches) await lockArch(json, arch);
}

main().catch((error: unknown) => {
  say(error instanceof Error ? error.message : String(error));
  process.exitCode = 1;
});
