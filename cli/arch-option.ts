// `--arch amd64|arm64`, which `release`, `image` and `netboot` share: the machines a build
// boots. A release's arch is in its release.toml, so `image` and `netboot` take the
// release's and check `--arch` against it; `release` builds for amd64 unless told.
import { ARCHES, type Arch, isArch } from "../common/arch.ts";
import { usageError } from "../common/errors.ts";
import type { OptionSpec, ParsedArgs } from "./verb.ts";

export function archOption(summary: string): OptionSpec {
  return { name: "arch", type: "string", value: "ARCH", summary };
}

/** `--arch` as given, or undefined without it. */
export function archOf(options: ParsedArgs["options"]): Arch | undefined {
  const given = options.arch;
  if (given === undefined) return undefined;
  if (!isArch(given))
    throw usageError(
      `--arch ${String(given)} is not an architecture liken builds for`,
      `give ${ARCHES.join(" or ")} (Debian's names: x86_64 is amd64, aarch64 is arm64)`,
    );
  return given;
}
