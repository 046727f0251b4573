// Where each mirror member's system partitions end, read from its GPT: a replacement must
// hold them, and the repair's confirmation must name the disk the repair will take, so the
// menu plans with the same bound the repair checks.
import type { Disk } from "../hardware/disks/index.ts";
import { survivorSystem, systemEnd } from "../installer/repair/repair.ts";

/** For each complete mirror member whose table reads: the end of its last system partition, in bytes. */
export async function mirrorSystemEnds(disks: readonly Disk[]): Promise<Map<string, number>> {
  const ends = new Map<string, number>();
  for (const d of disks) {
    if (d.verdict !== "liken" || !d.claim?.complete || !d.claim.mirror) continue;
    // A member whose table does not read is left out: the repair reads it again and says why.
    const system = await survivorSystem(d).catch(() => []);
    if (system.length > 0) ends.set(d.path, systemEnd(system));
  }
  return ends;
}
