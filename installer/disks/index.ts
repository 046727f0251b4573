// The disk inventory: discovery, probing and classification together.
import { classifyDisk } from "./classify.ts";
import { discoverDisks } from "./discover.ts";
import { probeDisks } from "./probe.ts";
import type { ContentProbe, Disk } from "./types.ts";

export { classifyDisk, MIN_DISK_SIZE } from "./classify.ts";
export type { ClaimSummary, ContentProbe, Disk, DiskFacts, Verdict } from "./types.ts";

/** Every disk of the machine, or exactly `paths`, each with its verdict and reasons. */
export async function inventoryDisks(
  paths: readonly string[] = [],
  held?: ReadonlySet<string>,
): Promise<Disk[]> {
  const facts = await discoverDisks(paths);
  const probes = await probeDisks(facts, held);
  return facts.map((f, i) => classifyDisk(f, probes[i] as ContentProbe));
}
