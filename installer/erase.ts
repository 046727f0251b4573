// Erases a disk whose liken claim verified, for wipe and reinstall. The claim is never
// removed, so that killed at any instant the disk still reads `liken` for this cluster (its
// claim, a table liken wrote or none, and at most old data in the middle), and the same
// wipe erases it again and finishes. Each step is flushed before the next:
//   0. a complete claim is marked partial (same install, next generation): a disk stopped
//      mid-erase holds no complete install, so a plain install finishes it instead of
//      calling it done, and the menu does not call the machine installed;
//   1. each partition's signatures: its first 4 MiB and last MiB, where filesystem, RAID,
//      LUKS and ZFS headers live;
//   2. on a block device, the kernel's partitions. The kernel lists them from boot until it
//      is told otherwise, and partitions listed with no table behind them read as someone
//      else's, so they go while the table still explains them;
//   3. the partition tables (the disk's first and last MiB), around the claim's two copies;
//   4. on a block device, the blocks in the middle (discarded);
//   5. the claim's tail copy. The head copy still names the old install: the install's claim
//      step writes the new claim over it, then the new tail copy.
import { channel } from "node:diagnostics_channel";
import { MIB } from "../common/size.ts";
import {
  CLAIM_HEAD_OFFSET,
  CLAIM_SIZE,
  claimTailOffset,
  encodeClaim,
  judgeClaim,
} from "../formats/claim.ts";
import type { Gpt } from "../formats/gpt.ts";
import { zeroRegion } from "../formats/write-image.ts";
import { discardRange } from "../tools/blkdiscard.ts";
import { forgetPartitions } from "../tools/partx.ts";
import type { DiskHandle } from "./lock.ts";

/**
 * Where the erase says how many bytes it has zeroed, after each region: for whoever watches
 * from inside the process (node:diagnostics_channel; the wipe tests' kill points).
 */
export const ERASE_CHANNEL = "liken:erase";
export interface EraseMessage {
  /** Bytes this erase has zeroed so far. */
  readonly erased: number;
}
const erased$ = channel(ERASE_CHANNEL);

/** A byte range: offset and length. */
type Region = readonly [number, number];

export async function eraseDisk(
  disk: DiskHandle,
  size: number,
  kind: "block" | "file",
  gpt: Gpt | undefined,
): Promise<void> {
  let erased = 0;
  const zero = async ([offset, length]: Region) => {
    await zeroRegion(disk.file, offset, length);
    erased += length;
    if (erased$.hasSubscribers) erased$.publish({ erased } satisfies EraseMessage);
  };
  await markPartial(disk, size);
  for (const region of partitionEdges(gpt)) await zero(region);
  await disk.file.sync();
  if (kind === "block") await forgetPartitions(disk.path);
  for (const region of tableRegions(size)) await zero(region);
  await disk.file.sync();
  // Discard tells an SSD the old blocks are free. It guarantees no zeros, and the middle
  // needs none: no header is left there.
  if (kind === "block")
    await discardRange(disk.path, MIB, Math.max(0, Math.floor(size / MIB) * MIB - 2 * MIB));
  await zero([claimTailOffset(size), CLAIM_SIZE]);
  await disk.file.sync();
}

function partitionEdges(gpt: Gpt | undefined): Region[] {
  return (gpt?.entries ?? []).flatMap((p) => {
    const head = Math.min(p.size, 4 * MIB);
    const tail = Math.min(p.size - head, MIB);
    return tail > 0
      ? [
          [p.start, head],
          [p.start + p.size - tail, tail],
        ]
      : [[p.start, head]];
  });
}

/** The disk's first and last MiB (MBR, both GPTs), without the claim's two copies. */
export function tableRegions(size: number): Region[] {
  const claims: Region[] = [
    [CLAIM_HEAD_OFFSET, CLAIM_SIZE],
    [claimTailOffset(size), CLAIM_SIZE],
  ];
  const edges: Region[] = [
    [0, Math.min(size, MIB)],
    [Math.max(MIB, size - MIB), Math.max(0, size - Math.max(MIB, size - MIB))],
  ];
  return claims.reduce<Region[]>((regions, hole) => regions.flatMap((r) => cut(r, hole)), edges);
}

// `region` without the bytes of `hole`: none, one or two regions.
function cut([offset, length]: Region, [holeAt, holeLength]: Region): Region[] {
  const end = offset + length;
  const holeEnd = holeAt + holeLength;
  if (holeEnd <= offset || holeAt >= end) return length > 0 ? [[offset, length]] : [];
  const parts: Region[] = [];
  if (holeAt > offset) parts.push([offset, holeAt - offset]);
  if (holeEnd < end) parts.push([holeEnd, end - holeEnd]);
  return parts;
}

async function markPartial(disk: DiskHandle, size: number): Promise<void> {
  const read = async (at: number) => {
    const b = Buffer.alloc(CLAIM_SIZE);
    await disk.file.read(b, 0, CLAIM_SIZE, at);
    return b;
  };
  const verdict = judgeClaim(await read(CLAIM_HEAD_OFFSET), await read(claimTailOffset(size)));
  if (verdict.state !== "valid" || !verdict.claim.complete) return;
  const partial = encodeClaim({
    ...verdict.claim,
    complete: false,
    generation: verdict.claim.generation + 1,
  });
  for (const at of [CLAIM_HEAD_OFFSET, claimTailOffset(size)]) {
    await disk.file.write(partial, 0, CLAIM_SIZE, at);
    await disk.file.sync();
  }
}
