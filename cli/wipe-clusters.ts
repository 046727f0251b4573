// `--wipe-cluster NAME`, which `install` and `plan` share: only with --wipe.
import { usageError } from "../common/errors.ts";
import type { ParsedArgs } from "./verb.ts";

export function wipeClustersOf(options: ParsedArgs["options"]): string[] {
  const named = options["wipe-cluster"];
  const clusters = Array.isArray(named) ? [...named] : typeof named === "string" ? [named] : [];
  if (clusters.length > 0 && options.wipe !== true)
    throw usageError("--wipe-cluster needs --wipe", "add --wipe, or leave --wipe-cluster out");
  return clusters;
}
