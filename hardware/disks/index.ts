// The disk inventory: discovery, probing and classification together.
import { classifyDisk } from "./classify.ts";
import { discoverDisks, type MissingModules } from "./discover.ts";
import { probeDisks } from "./probe.ts";
import type { ContentProbe, Disk } from "./types.ts";

export { classifyDisk, MIN_DISK_SIZE } from "./classify.ts";
export type { MissingModules } from "./discover.ts";
export type { ClaimSummary, ContentProbe, Disk, DiskFacts, Verdict } from "./types.ts";

/**
 * Every disk of the machine, or exactly `paths`, each with its verdict and reasons. With
 * `missingModules` (the hardware report's boot-path verdict), a disk whose driver chain
 * needs a module the release cannot load at boot is `unsupported`.
 */
export async function inventoryDisks(
  paths: readonly string[] = [],
  held?: ReadonlySet<string>,
  missingModules?: MissingModules,
): Promise<Disk[]> {
  const facts = await discoverDisks(paths, missingModules);
  const probes = await probeDisks(facts, held);
  return facts.map((f, i) => classifyDisk(f, probes[i] as ContentProbe));
}
