// The disk inventory: discovery, probing and classification together.
import { classifyDisk } from "./classify.ts";
import { discoverDisks, type MissingDrivers } from "./discover.ts";
import { probeDisks } from "./probe.ts";
import type { ContentProbe, Disk } from "./types.ts";

export { classifyDisk, MIN_DISK_SIZE } from "./classify.ts";
export type { MissingDrivers } from "./discover.ts";
export type { ClaimSummary, ContentProbe, Disk, DiskFacts, Verdict } from "./types.ts";

export interface InventoryOptions {
  /** Exactly these block devices and image files; every disk of the machine when empty. */
  readonly paths?: readonly string[];
  /** Disks this process holds open exclusively (the installer's lock): not "in use" for that. */
  readonly held?: ReadonlySet<string>;
  /**
   * The release's boot-path verdict (hardware/missing-drivers.ts): a disk whose driver chain
   * needs a module the release cannot load at boot is `unsupported`.
   */
  readonly missingDrivers?: MissingDrivers;
  /** An image file's logical sector size (`--sector-size`); else its GPT's, else 512. */
  readonly fileSectorSize?: number;
}

/** Every disk of the machine, or exactly `paths`, each with its verdict and reasons. */
export async function inventoryDisks(options: InventoryOptions = {}): Promise<Disk[]> {
  const facts = await discoverDisks(
    options.paths ?? [],
    options.missingDrivers,
    options.fileSectorSize,
  );
  const probes = await probeDisks(facts, options.held);
  return facts.map((f, i) => classifyDisk(f, probes[i] as ContentProbe, facts));
}
