// apt-cache and apt-get: which version of a Debian package the mirror offers, its recorded
// hash, and the .deb itself. Reads the package lists that `apt-get update` left; never
// installs anything on the host. A private apt (its own sources.list, lists and cache) fetches
// what the host's sources do not offer: source packages, the non-free-firmware packages, and
// another architecture's packages (arm64's, on an amd64 host whose dpkg knows only amd64).
import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { run } from "./exec.ts";

/** One version of a package as the mirror's (signed) Packages index describes it. */
export interface AptRecord {
  readonly name: string;
  readonly version: string;
  readonly arch: string;
  readonly size: number;
  readonly sha256: string;
  /** The path in the archive's pool: `pool/main/k/kmod/kmod_30+20221128-1_amd64.deb`. */
  readonly poolPath: string;
}

/** The version apt would install of each package, or undefined when it offers none. */
export async function findCandidateVersions(
  names: readonly string[],
  aptOptions: readonly string[] = [], // privateAptOptions for a private apt
): Promise<Map<string, string | undefined>> {
  const { stdout } = await run("apt-cache", [...aptOptions, "policy", ...names]);
  return parsePolicy(stdout, names);
}

/** Exported for tests: `apt-cache policy` prints one block per package it knows. */
export function parsePolicy(
  text: string,
  names: readonly string[],
): Map<string, string | undefined> {
  const result = new Map<string, string | undefined>(names.map((n) => [n, undefined]));
  let current: string | undefined;
  for (const line of text.split("\n")) {
    const head = /^(\S+):$/.exec(line);
    if (head) current = head[1];
    const candidate = /^ {2}Candidate: (\S+)$/.exec(line);
    if (candidate && current !== undefined && result.has(current))
      result.set(current, candidate[1] === "(none)" ? undefined : candidate[1]);
  }
  return result;
}

/** The Packages records of exact versions (`name=version`), one per name. */
export async function showVersions(
  specs: readonly { name: string; version: string }[],
  aptOptions: readonly string[] = [],
): Promise<Map<string, AptRecord>> {
  const { stdout } = await run("apt-cache", [
    ...aptOptions,
    "show",
    "--no-all-versions", // only the record asked for, not every version the lists hold
    ...specs.map((s) => `${s.name}=${s.version}`),
  ]);
  const result = new Map<string, AptRecord>();
  for (const block of stdout.split(/\n\s*\n/)) {
    const field = (key: string) => new RegExp(`^${key}: (.*)$`, "m").exec(block)?.[1]?.trim();
    const name = field("Package");
    const version = field("Version");
    if (!name || !version || result.has(name)) continue; // a version in two archives prints twice
    result.set(name, {
      name,
      version,
      arch: field("Architecture") ?? "",
      size: Number(field("Size")),
      sha256: field("SHA256") ?? "",
      poolPath: field("Filename") ?? "",
    });
  }
  return result;
}

/** The packages the candidate version of `name` depends on (alternatives flattened). */
export async function findDepends(
  name: string,
  aptOptions: readonly string[] = [],
): Promise<string[]> {
  const { stdout } = await run("apt-cache", [
    ...aptOptions,
    "depends",
    "--no-recommends", // only what the package needs
    "--no-suggests",
    "--no-conflicts",
    "--no-breaks",
    "--no-replaces",
    "--no-enhances",
    name,
  ]);
  return [...stdout.matchAll(/^\s+\|?Depends: <?([^\s>]+)>?$/gm)].map((m) => m[1]!);
}

/** Downloads exact versions into `dir` (apt-get download writes to its working directory). */
export async function downloadDebs(
  specs: readonly { name: string; version: string }[],
  dir: string,
  aptOptions: readonly string[] = [],
): Promise<void> {
  if (specs.length === 0) return;
  await run(
    "apt-get",
    [
      ...aptOptions,
      "download",
      "--quiet",
      "--quiet", // no progress meter in the build log
      "-o",
      "APT::Sandbox::User=root", // the _apt user cannot write into the build's private temp dir
      "-o",
      "Acquire::Retries=3", // a dropped connection to the mirror retries instead of failing the build
      ...specs.map((s) => `${s.name}=${s.version}`),
    ],
    { cwd: dir, timeoutMs: 30 * 60_000 },
  );
}

/** The file name apt-get download gives a package: the epoch's colon is written `%3a`. */
export function debFileName(name: string, version: string, arch: string): string {
  return `${name}_${version.replace(":", "%3a")}_${arch}.deb`;
}

/**
 * apt-get options for a private apt: sources from `dir/sources.list` only, package lists
 * and caches in `dir`. The host's own sources, lists and caches are neither read nor
 * changed, so fetching a source package needs no deb-src line in /etc/apt. With `arch`,
 * its lists, candidates and downloads are that Debian architecture's alone (and `all`), so
 * an amd64 host fetches arm64's packages without dpkg --add-architecture.
 */
export function privateAptOptions(dir: string, arch?: string): string[] {
  return [
    // the native architecture and the only foreign one: the lists fetched are this arch's
    ...(arch ? ["-o", `APT::Architecture=${arch}`, "-o", `APT::Architectures=${arch}`] : []),
    ...["-o", `Dir::Etc::sourcelist=${join(dir, "sources.list")}`],
    ...["-o", "Dir::Etc::sourceparts=-"], // no /etc/apt/sources.list.d
    ...["-o", `Dir::State::Lists=${join(dir, "lists")}`],
    ...["-o", `Dir::Cache=${join(dir, "cache")}`],
    ...["-o", "APT::Get::List-Cleanup=0"],
    ...["-o", "APT::Sandbox::User=root"], // the _apt user cannot enter root's cache folder
    ...["-o", "Acquire::Retries=3"],
    ...["-o", "Acquire::Languages=none"], // no Translation files: only Sources and Packages are needed
  ];
}

/**
 * Writes `dir/sources.list` and runs `apt-get update` on the private apt in `dir`. A list
 * that cannot be fetched is an error (`--error-on=any`), not a warning.
 */
export async function updatePrivateLists(
  dir: string,
  sourcesList: string,
  arch?: string, // as for privateAptOptions
): Promise<void> {
  await mkdir(join(dir, "lists", "partial"), { recursive: true });
  await mkdir(join(dir, "cache", "archives", "partial"), { recursive: true });
  await writeFile(join(dir, "sources.list"), sourcesList);
  await run(
    "apt-get",
    ["--quiet", "--quiet", ...privateAptOptions(dir, arch), "--error-on=any", "update"],
    { timeoutMs: 15 * 60_000 },
  );
}

/**
 * Downloads the source package `name=version` (its .dsc and the files it lists) into
 * `destDir` with the private apt in `dir` (updatePrivateLists first). Nothing is unpacked
 * or built.
 */
export async function downloadSourcePackage(
  dir: string,
  spec: { name: string; version: string },
  destDir: string,
): Promise<void> {
  await run(
    "apt-get",
    [
      "--quiet",
      "--quiet", // no progress meter in the test log
      ...privateAptOptions(dir),
      "source",
      "--download-only", // no dpkg-source: the files as the archive has them
      `${spec.name}=${spec.version}`,
    ],
    { cwd: destDir, timeoutMs: 15 * 60_000 },
  );
}
