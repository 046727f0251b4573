// Where each mirror member's system partitions end, read from its GPT: a replacement must
// hold them, and the repair's confirmation must name the disk the repair will take, so the
// menu plans with the same bound the repair checks.
import { open } from "node:fs/promises";
import { SYSTEM_LABELS } from "../common/partition-labels.ts";
import { MIB } from "../common/size.ts";
import { parseGpt } from "../formats/gpt.ts";
import type { Disk } from "../hardware/disks/index.ts";

/** For each complete mirror member whose table reads: the end of its last system partition, in bytes. */
export async function mirrorSystemEnds(disks: readonly Disk[]): Promise<Map<string, number>> {
  const ends = new Map<string, number>();
  for (const d of disks) {
    if (d.verdict !== "liken" || !d.claim?.complete || !d.claim.mirror) continue;
    // A member whose table does not read is left out: the repair reads it again and says why.
    const end = await systemEnd(d).catch(() => undefined);
    if (end !== undefined) ends.set(d.path, end);
  }
  return ends;
}

async function systemEnd(disk: Disk): Promise<number | undefined> {
  const handle = await open(disk.path, "r");
  const head = Buffer.alloc(MIB);
  try {
    await handle.read(head, 0, head.length, 0);
  } finally {
    await handle.close();
  }
  const system = (parseGpt(head, [disk.logicalSectorSize])?.entries ?? []).filter((e) =>
    SYSTEM_LABELS.includes(e.name),
  );
  return system.length > 0 ? Math.max(...system.map((e) => e.start + e.size)) : undefined;
}
