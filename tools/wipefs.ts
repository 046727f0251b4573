// wipefs(8): finds every signature libblkid knows, at every offset (primary and backup GPT,
// end-of-disk RAID and ZFS labels, superblocks with bad checksums), without writing.
import { run } from "./exec.ts";

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

/** Every signature on `path` (a block device or an image file); [] when there is none. */
export async function findSignatures(path: string, timeoutMs = 30_000): Promise<Signature[]> {
  const { stdout } = await run(
    "wipefs",
    [
      "--no-act", // only look
      "--json",
      "--output",
      "DEVICE,OFFSET,TYPE,USAGE", // USAGE is not in the default columns
      path,
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
