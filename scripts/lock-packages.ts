// Pins the image's inputs: every Debian package of image-build/packages.json at the version
// the mirror offers now (apt-cache policy's candidate), checked against the sha256 in apt's
// signed index and written to image-build/packages.lock.json (a package with a `component`,
// such as the firmware in non-free-firmware, through a private apt that lists it, since the
// host's sources may list only main); and the Node.js tarball of
// packages.json's "node" entry, written to image-build/node.lock.json. Downloads what it
// pins into the cache, so the next build starts warm.
//
//   npx tsx scripts/lock-packages.ts        (after apt-get update, to take a mirror's updates)
import { mkdir, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { LikenError } from "../common/errors.ts";
import { defaultCacheDir } from "../image-build/inputs/cache.ts";
import {
  fetchDebs,
  type LockedDeb,
  PACKAGES_JSON,
  PACKAGES_LOCK,
  readPackagesLock,
} from "../image-build/inputs/debian.ts";
import {
  extractBinary,
  fetchNodeTarball,
  NODE_LOCK,
  type NodeLock,
} from "../image-build/inputs/node.ts";
import { type Component, withComponentApt } from "../image-build/inputs/private-apt.ts";
import { debFileName, findCandidateVersions, findDepends, showVersions } from "../tools/apt.ts";

interface PackagesJson {
  kernelMetaPackage: string;
  packages: { name: string; why: string; component?: Component }[];
  node: { package: string; version: string; binary: string; why: string };
}

function say(line: string): void {
  process.stderr.write(`lock-packages: ${line}\n`);
}

async function lockDebian(spec: PackagesJson): Promise<LockedDeb[]> {
  const entries = await lockFrom(
    spec.packages.filter((p) => p.component === undefined).map((p) => p.name),
    [],
    undefined,
  );
  // Packages of a component the host's sources may lack: through a private apt that lists it.
  const components = new Set(spec.packages.flatMap((p) => p.component ?? []));
  for (const component of components) {
    const names = spec.packages.filter((p) => p.component === component).map((p) => p.name);
    await mkdir(defaultCacheDir("debs"), { recursive: true });
    entries.push(
      ...(await withComponentApt(component, defaultCacheDir("debs"), (options) =>
        lockFrom(names, options, component),
      )),
    );
  }
  return entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}

/** Pins `names` at the candidate version of the apt that `aptOptions` select (the host's when empty). */
async function lockFrom(
  names: readonly string[],
  aptOptions: readonly string[],
  component: Component | undefined,
): Promise<LockedDeb[]> {
  const candidates = await findCandidateVersions(names, aptOptions);
  const none = names.filter((n) => candidates.get(n) === undefined);
  if (none.length > 0)
    throw new LikenError({
      kind: "failed",
      what: `the mirror offers no version of ${none.join(", ")}${component ? ` in ${component}` : ""}`,
      hint: "run apt-get update; if a package was renamed (a new kernel ABI), fix image-build/packages.json",
    });
  const records = await showVersions(
    names.map((name) => ({ name, version: candidates.get(name)! })),
    aptOptions,
  );
  const entries = names.map((name): LockedDeb => {
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
      ...(component ? { component } : {}),
    };
  });
  // apt's index hashes are what the downloads are checked against: the lock records what
  // Debian signed, and a corrupt download fails here rather than being pinned.
  await fetchDebs(entries, defaultCacheDir("debs"));
  return entries;
}

async function checkKernel(spec: PackagesJson): Promise<void> {
  const wanted = (await findDepends(spec.kernelMetaPackage)).find((d) =>
    d.startsWith("linux-image-"),
  );
  const pinned = spec.packages.find((p) => p.name.startsWith("linux-image-"))?.name;
  if (wanted && wanted !== pinned)
    say(
      `warning: ${spec.kernelMetaPackage} now depends on ${wanted}, but image-build/packages.json pins ${pinned}: replace it there and run this again`,
    );
}

async function lockNode(spec: PackagesJson): Promise<NodeLock> {
  const cacheDir = defaultCacheDir("node");
  const tarball = await fetchNodeTarball(`${spec.node.package}@${spec.node.version}`, cacheDir);
  const binary = await extractBinary(
    tarball.path,
    spec.node.binary,
    join(cacheDir, `${spec.node.package}-${spec.node.version}`, "node"),
  );
  return {
    package: spec.node.package,
    version: spec.node.version,
    filename: tarball.filename,
    size: tarball.size,
    sha256: tarball.sha256,
    integrity: tarball.integrity,
    binary: { path: spec.node.binary, ...binary },
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

async function main(): Promise<void> {
  const spec = JSON.parse(await readFile(PACKAGES_JSON, "utf8")) as PackagesJson;
  await checkKernel(spec);
  const before = await readPackagesLock().catch(() => []);
  const debs = await lockDebian(spec);
  await writeFile(PACKAGES_LOCK, `${JSON.stringify(debs, null, 2)}\n`);
  const total = debs.reduce((sum, e) => sum + e.size, 0);
  say(`${debs.length} Debian packages, ${(total / 2 ** 20).toFixed(1)} MiB, in ${PACKAGES_LOCK}`);
  for (const line of describeChanges(before, debs)) say(`  ${line}`);

  const node = await lockNode(spec);
  await writeFile(NODE_LOCK, `${JSON.stringify(node, null, 2)}\n`);
  say(
    `${node.package}@${node.version}, ${(node.size / 2 ** 20).toFixed(1)} MiB (node ${(node.binary.size / 2 ** 20).toFixed(1)} MiB), in ${NODE_LOCK}`,
  );
}

main().catch((error: unknown) => {
  say(error instanceof Error ? error.message : String(error));
  process.exitCode = 1;
});
