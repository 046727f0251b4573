// apt-cache and apt-get: which version of a Debian package the mirror offers, its recorded
// hash, and the .deb itself. Reads the package lists that `apt-get update` left; never
// installs anything on the host.
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
): Promise<Map<string, string | undefined>> {
  const { stdout } = await run("apt-cache", ["policy", ...names]);
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
): Promise<Map<string, AptRecord>> {
  const { stdout } = await run("apt-cache", [
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
export async function findDepends(name: string): Promise<string[]> {
  const { stdout } = await run("apt-cache", [
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
): Promise<void> {
  if (specs.length === 0) return;
  await run(
    "apt-get",
    [
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
