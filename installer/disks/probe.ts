// Reads what a disk holds: signatures (wipefs), the partition table (sfdisk), the first and
// last MiB, the liken claim, and whether it can be opened exclusively. Never writes.
import { constants, open } from "node:fs/promises";
import { CommandError } from "../../tools/exec.ts";
import { findPartitionTable } from "../../tools/sfdisk.ts";
import { findSignatures, type Signature } from "../../tools/wipefs.ts";
import { CLAIM_HEAD_OFFSET, CLAIM_SIZE, claimTailOffset, judgeClaim } from "../claim.ts";
import type { ContentProbe, DiskFacts } from "./types.ts";

const MIB = 1024 * 1024;

export async function probeDisk(facts: DiskFacts): Promise<ContentProbe> {
  const failed: ContentProbe["failed"][number][] = [];
  const [signatures, table, bytes, exclusive] = await Promise.all([
    allSignatures(facts).catch(() => {
      failed.push("wipefs");
      return [];
    }),
    findPartitionTable(facts.path).catch((error) => {
      // No table is an answer; anything else is a probe that failed.
      if (!(error instanceof CommandError)) throw error;
      failed.push("sfdisk");
      return undefined;
    }),
    readEdges(facts).catch(() => {
      failed.push("read");
      return undefined;
    }),
    facts.kind === "block" ? canOpenExclusively(facts.path) : Promise.resolve(undefined),
  ]);
  if (exclusive === "error") failed.push("open");
  return {
    signatures,
    ...(table ? { table } : {}),
    ...(bytes ? { headZero: isZero(bytes.head), tailZero: isZero(bytes.tail) } : {}),
    ...(exclusive === true || exclusive === false ? { exclusive } : {}),
    claim: bytes ? judgeClaim(bytes.claimHead, bytes.claimTail) : { state: "none" },
    failed: failed.sort(),
  };
}

// The whole disk's signatures, plus each kernel partition's, at their offsets on the disk.
async function allSignatures(facts: DiskFacts): Promise<Signature[]> {
  const own = await findSignatures(facts.path);
  const inner = await Promise.all(
    facts.partitions.map(async (p) =>
      (await findSignatures(p.path)).map((s) => {
        const offset = s.offset + p.start;
        return { ...s, offset, offsetText: `0x${offset.toString(16)}` };
      }),
    ),
  );
  return [...own, ...inner.flat()];
}

async function readEdges(facts: DiskFacts) {
  const handle = await open(facts.path, constants.O_RDONLY);
  try {
    const at = async (position: number, length: number) => {
      const buffer = Buffer.alloc(Math.max(0, Math.min(length, facts.size - position)));
      if (buffer.length > 0 && position >= 0) await handle.read(buffer, 0, buffer.length, position);
      return buffer;
    };
    const tailStart = Math.max(0, facts.size - MIB);
    return {
      head: await at(0, MIB),
      tail: await at(tailStart, MIB),
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

function isZero(b: Buffer): boolean {
  // Compare in 8-byte words: a MiB per disk, twice, for every disk on the machine.
  if (b.byteOffset % 8 !== 0) return b.every((x) => x === 0);
  const words = new BigUint64Array(b.buffer, b.byteOffset, Math.floor(b.length / 8));
  for (const w of words) if (w !== 0n) return false;
  for (let i = words.length * 8; i < b.length; i++) if (b[i] !== 0) return false;
  return true;
}
