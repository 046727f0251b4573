// wipefs(8): finds every signature libblkid knows, at every offset (primary and backup GPT,
// end-of-disk RAID and ZFS labels, superblocks with bad checksums), without writing.
import { basename } from "node:path";
import { CommandError, run } from "./exec.ts";

export interface Signature {
  readonly device: string;
  /** Byte offset of the magic, as a number and as wipefs prints it ("0x438"). */
  readonly offset: number;
  readonly offsetText: string;
  /** libblkid's TYPE: "gpt", "PMBR", "dos", "ext4", "linux_raid_member", ... */
  readonly type: string;
  /** "partition-table", "filesystem", "raid", "crypto", "other" */
  readonly usage: string;
}

interface WipefsJson {
  signatures?: { device: string; offset: string; type: string; usage: string }[];
}

/**
 * Every signature on each of `paths` (block devices or image files), by path. One wipefs
 * for all of them; if that fails, one each, so one unreadable disk fails alone: its entry
 * is the error. A run that outlasts `timeoutMs` is not tried again: each path's entry is
 * that timeout.
 */
export async function findSignaturesOfMany(
  paths: readonly string[],
  timeoutMs = 30_000,
): Promise<Map<string, Signature[] | Error>> {
  const result = new Map<string, Signature[] | Error>();
  if (paths.length === 0) return result;
  const batch = await findSignatures(paths, timeoutMs).catch((e: unknown) => e);
  if (batch instanceof CommandError && batch.timedOut) {
    for (const p of paths) result.set(p, batch);
    return result;
  }
  // wipefs names each device by its basename: the batch answer counts only when every
  // signature maps to exactly one path asked about (a lost signature would read as blank).
  const byName = new Map(paths.map((p) => [basename(p), p]));
  if (
    Array.isArray(batch) &&
    byName.size === paths.length &&
    batch.every((s) => byName.has(s.device))
  ) {
    for (const p of paths)
      result.set(
        p,
        batch.filter((s) => byName.get(s.device) === p),
      );
    return result;
  }
  await Promise.all(
    paths.map(async (p) =>
      result.set(p, await findSignatures([p], timeoutMs).catch((e: Error) => e)),
    ),
  );
  return result;
}

async function findSignatures(paths: readonly string[], timeoutMs: number): Promise<Signature[]> {
  const { stdout } = await run(
    "wipefs",
    [
      "--no-act", // only look
      "--json",
      "--output",
      "DEVICE,OFFSET,TYPE,USAGE", // USAGE is not in the default columns
      ...paths,
    ],
    { timeoutMs },
  );
  // wipefs prints nothing at all for some devices with no signature
  if (stdout.trim() === "") return [];
  const parsed = JSON.parse(stdout) as WipefsJson;
  return (parsed.signatures ?? []).map((s) => ({
    device: s.device,
    offset: Number.parseInt(s.offset, 16),
    offsetText: s.offset,
    type: s.type,
    usage: s.usage,
  }));
}
