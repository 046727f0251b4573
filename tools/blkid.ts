// blkid(8) in low-level mode (-p, no cache): what libblkid recognizes at one offset of a disk, as if a
// partition started there. wipefs finds what the disk and the kernel's partitions hold;
// this finds what sits at a partition start no table names any more (a zapped GPT).
import { run } from "./exec.ts";

export interface Found {
  /** libblkid's TYPE ("ext4", "crypto_LUKS", ...); "ambivalent" when two formats match. */
  readonly type: string;
  /** "filesystem", "raid", "crypto", "other", ... ("unknown" for an ambivalent result). */
  readonly usage: string;
}

// blkid's exit codes (blkid(8)): 2 nothing found, 8 an ambivalent low-level result.
const NOTHING = 2;
const AMBIVALENT = 8;

/**
 * What libblkid finds at byte `offset` of `path`, probing `size` bytes from there (a
 * partition's size, so end-of-partition headers such as md 1.0 and ZFS labels are found;
 * the rest of the disk when not given). Undefined when nothing is there.
 */
export async function probeAt(
  path: string,
  offset: number,
  size?: number,
  timeoutMs = 30_000,
): Promise<Found | undefined> {
  const { stdout, exitCode } = await run(
    "blkid",
    [
      "--probe",
      "--offset",
      String(offset),
      ...(size !== undefined ? ["--size", String(size)] : []),
      "--output",
      "export",
      path,
    ],
    { timeoutMs, okExitCodes: [NOTHING, AMBIVALENT] },
  );
  if (exitCode === NOTHING) return undefined;
  if (exitCode === AMBIVALENT) return { type: "ambivalent", usage: "unknown" };
  const fields = new Map(
    stdout
      .split("\n")
      .map((line) => line.split("=", 2) as [string, string | undefined])
      .filter((kv): kv is [string, string] => kv[1] !== undefined),
  );
  // A partition table at the offset (a nested MBR) is reported as PTTYPE, not TYPE.
  const type = fields.get("TYPE") ?? fields.get("PTTYPE");
  if (!type) return undefined;
  return {
    type,
    usage: fields.get("USAGE") ?? (fields.has("PTTYPE") ? "partition-table" : "other"),
  };
}
