// Writes a disk's claim: one copy, flushed, then the other, so a torn write can spoil only
// one of them (formats/claim.ts). The install and the mirror's repair write with it.
import type { FileHandle } from "node:fs/promises";
import { CLAIM_HEAD_OFFSET, type Claim, claimTailOffset, encodeClaim } from "../formats/claim.ts";

export async function writeClaimCopies(
  file: FileHandle,
  diskSize: number,
  claim: Claim,
): Promise<void> {
  const bytes = encodeClaim(claim);
  await file.write(bytes, 0, bytes.length, CLAIM_HEAD_OFFSET);
  await file.sync();
  await file.write(bytes, 0, bytes.length, claimTailOffset(diskSize));
  await file.sync();
}
