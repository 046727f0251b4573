// The release a build puts on a stick or a boot server must be the one its manifest names:
// the machine's installer refuses any other (installer/install.ts, preflight), so a stick
// built from another would fail on every machine it meets. Checked before anything is built.
import { LikenError } from "../common/errors.ts";
import { type ReleaseInfo, requireRelease } from "../formats/release.ts";
import type { Manifest } from "../manifest/index.ts";

export async function requireReleaseOf(
  manifest: Manifest,
  manifestFile: string,
  releaseDir: string,
): Promise<ReleaseInfo> {
  const release = await requireRelease(releaseDir);
  const wanted = manifest.release.version;
  if (release.version === wanted) return release;
  throw new LikenError({
    kind: "refused",
    what: `release ${releaseDir} is ${release.version}, but the [release] version of ${manifestFile} is ${wanted}`,
    hint: `give --release a folder of release ${wanted}, built by liken-stick release --version ${wanted} --out DIR, or set version = "${release.version}" under [release] in ${manifestFile}`,
    reason: "ReleaseInvalid",
  });
}
