// `--sector-size 512|4096`, which `disks`, `plan` and `install` share: the logical sector
// size of the image files named, so that a 4Kn layout can be made and read in a file.
import { usageError } from "../common/errors.ts";
import type { OptionSpec, ParsedArgs } from "./verb.ts";

export const SECTOR_SIZE_OPTION: OptionSpec = {
  name: "sector-size",
  type: "string",
  value: "BYTES",
  summary:
    "image files' logical sector size, 512 or 4096 (default: their GPT's, else 512); block devices keep their own",
};

export function sectorSizeOf(options: ParsedArgs["options"]): {
  fileSectorSize?: number;
} {
  const given = options["sector-size"];
  if (given === undefined) return {};
  if (given !== "512" && given !== "4096")
    throw usageError(
      `--sector-size ${String(given)} is not a sector size liken lays out`,
      "give 512 or 4096",
    );
  return { fileSectorSize: Number(given) };
}
