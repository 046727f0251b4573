// The release a build puts on a stick or a boot server must be the one its manifest names:
// the machine's installer refuses any other (installer/install.ts, preflight), so a stick
// built from another would fail on every machine it meets. Its arch is the build's: `--arch`
// only confirms it, and a build that would install none of the manifest's machines is
// refused. Checked before anything is built.
import type { Arch } from "../common/arch.ts";
import { LikenError } from "../common/errors.ts";
import { type ReleaseInfo, requireRelease } from "../formats/release.ts";
import { type Manifest, machineArch } from "../manifest/index.ts";

export async function requireReleaseOf(
  manifest: Manifest,
  manifestFile: string,
  releaseDir: string,
  arch?: Arch,
): Promise<ReleaseInfo> {
  const release = await requireRelease(releaseDir);
  const wanted = manifest.release.version;
  if (release.version !== wanted) throw otherVersion(release, manifestFile, releaseDir, wanted);
  if (arch !== undefined && arch !== release.arch)
    throw new LikenError({
      kind: "refused",
      what: `--arch ${arch} asks for a build for ${arch} machines, and release ${releaseDir} is for ${release.arch} machines`,
      hint: `give --release a folder built by liken-stick release --arch ${arch}, or leave --arch out to build for ${release.arch}`,
      reason: "ReleaseInvalid",
    });
  if (manifest.machines.some((m) => machineArch(m) === release.arch)) return release;
  const theirs = [...new Set(manifest.machines.map((m) => machineArch(m)))].join(" and ");
  throw new LikenError({
    kind: "refused",
    what: `release ${releaseDir} is for ${release.arch} machines, and every machine of ${manifestFile} is ${theirs}`,
    hint: `build the release with liken-stick release --arch ${theirs.split(" ")[0]}, or correct the machines' arch in ${manifestFile}`,
    reason: "ReleaseInvalid",
  });
}

/**
 * The manifest's machines of another arch than the release's, by arch: a build installs
 * only the machines of its own arch (docs/image.md, Arches).
 */
export function machinesOfOtherArch(manifest: Manifest, release: ReleaseInfo): string | undefined {
  const others = manifest.machines.filter((m) => machineArch(m) !== release.arch);
  if (others.length === 0) return undefined;
  const named = others.map((m) => `${m.name} (${machineArch(m)})`).join(", ");
  return `It installs the ${release.arch} machines; ${named} need a build from a release of their arch.`;
}

function otherVersion(
  release: ReleaseInfo,
  manifestFile: string,
  releaseDir: string,
  wanted: string,
): LikenError {
  return new LikenError({
    kind: "refused",
    what: `release ${releaseDir} is ${release.version}, but the [release] version of ${manifestFile} is ${wanted}`,
    hint: `give --release a folder of release ${wanted}, built by liken-stick release --version ${wanted} --out DIR, or set version = "${release.version}" under [release] in ${manifestFile}`,
    reason: "ReleaseInvalid",
  });
}
