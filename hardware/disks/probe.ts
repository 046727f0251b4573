// Reads what disks hold: signatures (wipefs, one run for all disks), the GPT, the first and
// last MiB, the liken claim, and whether each can be opened exclusively. Never writes.
import { constants, open } from "node:fs/promises";
import { MIB } from "../../common/size.ts";
import { CLAIM_HEAD_OFFSET, CLAIM_SIZE, claimTailOffset, judgeClaim } from "../../formats/claim.ts";
import { parseGpt } from "../../formats/gpt.ts";
import { countMbrPartitions } from "../../formats/mbr.ts";
import { isZero } from "../../formats/write-image.ts";
import { findSignaturesOfMany, type Signature } from "../../tools/wipefs.ts";
import type { ContentProbe, DiskFacts } from "./types.ts";

/**
 * The probe of each disk, in the order given. `held` names disks this process holds open
 * exclusively (the installer, classifying its targets again): their exclusive open is ours.
 */
export async function probeDisks(
  disks: readonly DiskFacts[],
  held: ReadonlySet<string> = new Set(),
): Promise<ContentProbe[]> {
  const paths = disks.flatMap((d) => [d.path, ...d.partitions.map((p) => p.path)]);
  const signatures = await findSignaturesOfMany(paths);
  return Promise.all(disks.map((d) => probeDisk(d, signatures, held.has(d.path))));
}

async function probeDisk(
  facts: DiskFacts,
  found: Map<string, Signature[] | Error>,
  held: boolean,
): Promise<ContentProbe> {
  const failed: ContentProbe["failed"][number][] = [];
  // Partition signatures are reported at their offset on the disk.
  const signatures: Signature[] = [];
  for (const [path, start] of [
    [facts.path, 0] as const,
    ...facts.partitions.map((p) => [p.path, p.start] as const),
  ]) {
    const list = found.get(path);
    if (!Array.isArray(list)) {
      if (!failed.includes("wipefs")) failed.push("wipefs");
      continue;
    }
    for (const s of list) {
      const offset = s.offset + start;
      signatures.push(start === 0 ? s : { ...s, offset, offsetText: `0x${offset.toString(16)}` });
    }
  }
  const [bytes, exclusive] = await Promise.all([
    readEdges(facts).catch(() => undefined),
    facts.kind === "block" && !held ? canOpenExclusively(facts.path) : Promise.resolve(undefined),
  ]);
  if (!bytes) failed.push("read");
  if (exclusive === "error") failed.push("open");
  const gpt = bytes ? parseGpt(bytes.head, [facts.logicalSectorSize]) : undefined;
  return {
    signatures,
    ...(gpt ? { gpt } : {}),
    mbrPartitions: bytes ? countMbrPartitions(bytes.head) : 0,
    ...(bytes ? { headZero: isZero(bytes.head), tailZero: isZero(bytes.tail) } : {}),
    ...(exclusive === true || exclusive === false ? { exclusive } : {}),
    claim: bytes ? judgeClaim(bytes.claimHead, bytes.claimTail) : { state: "none" },
    failed: failed.sort(),
  };
}

async function readEdges(facts: DiskFacts) {
  const handle = await open(facts.path, constants.O_RDONLY);
  try {
    const at = async (position: number, length: number) => {
      const buffer = Buffer.alloc(Math.max(0, Math.min(length, facts.size - position)));
      if (buffer.length > 0 && position >= 0) await handle.read(buffer, 0, buffer.length, position);
      return buffer;
    };
    return {
      head: await at(0, MIB),
      tail: await at(Math.max(0, facts.size - MIB), MIB),
      claimHead: await at(CLAIM_HEAD_OFFSET, CLAIM_SIZE),
      claimTail: await at(claimTailOffset(facts.size), CLAIM_SIZE),
    };
  } finally {
    await handle.close();
  }
}

// O_EXCL on a block device fails with EBUSY while anything holds it: a mount, a dm or md
// holder, swap, another installer.
async function canOpenExclusively(path: string): Promise<boolean | "error"> {
  try {
    const handle = await open(path, constants.O_RDONLY | constants.O_EXCL);
    await handle.close();
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EBUSY" ? false : "error";
  }
}
