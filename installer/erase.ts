// Erases a disk whose liken claim verified, for wipe and reinstall: each partition's
// signatures first (the first 4 MiB and last MiB of every partition, where filesystem, RAID,
// LUKS and ZFS headers live), then the table and the claim (the disk's first and last
// MiB). Until that last step the claim stays valid, so an interrupted erase leaves a liken
// disk that the same wipe finishes.

import { MIB } from "../common/size.ts";
import { CLAIM_SIZE, claimTailOffset } from "../formats/claim.ts";
import type { Gpt } from "../formats/gpt.ts";
import { zeroRegion } from "../formats/write-image.ts";
import { discardRange } from "../tools/blkdiscard.ts";
import type { DiskHandle } from "./lock.ts";

export async function eraseDisk(
  disk: DiskHandle,
  size: number,
  kind: "block" | "file",
  gpt: Gpt | undefined,
): Promise<void> {
  for (const p of gpt?.entries ?? []) {
    const head = Math.min(p.size, 4 * MIB);
    await zeroRegion(disk.file, p.start, head);
    const tail = Math.min(p.size - head, MIB);
    if (tail > 0) await zeroRegion(disk.file, p.start + p.size - tail, tail);
  }
  await disk.file.sync();
  // Discard tells an SSD the old blocks are free; it guarantees no zeros, so zeroing follows.
  if (kind === "block")
    await discardRange(disk.path, MIB, Math.max(0, Math.floor(size / MIB) * MIB - 2 * MIB));
  await zeroRegion(disk.file, 0, Math.min(size, MIB));
  await disk.file.sync();
  await zeroRegion(disk.file, claimTailOffset(size), CLAIM_SIZE);
  await zeroRegion(disk.file, Math.max(0, size - MIB), Math.min(size, MIB));
  await disk.file.sync();
}
