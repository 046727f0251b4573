// sfdisk(8): reads and writes partition tables, on block devices and image files alike.
import { CommandError, run } from "./exec.ts";

export interface PartitionEntry {
  /** The partition's number in the table (1-based). */
  readonly number: number;
  /** Start and size in bytes. */
  readonly start: number;
  readonly size: number;
  /** GPT type GUID (upper case) or MBR type ("83"). */
  readonly type: string;
  readonly uuid?: string;
  readonly name?: string;
}

export interface PartitionTable {
  readonly label: "gpt" | "dos" | string;
  readonly id: string;
  readonly sectorSize: number;
  readonly partitions: readonly PartitionEntry[];
}

interface SfdiskJson {
  partitiontable: {
    label: string;
    id: string;
    sectorsize?: number;
    partitions?: { node: string; start: number; size: number; type: string; uuid?: string; name?: string }[];
  };
}

/** The partition table of `path`, or undefined when it has none that sfdisk recognizes. */
export async function findPartitionTable(path: string): Promise<PartitionTable | undefined> {
  let stdout: string;
  try {
    ({ stdout } = await run("sfdisk", ["--json", path], { timeoutMs: 30_000 }));
  } catch (error) {
    if (error instanceof CommandError && /does not contain a recognized partition table/.test(error.stderrTail)) {
      return undefined;
    }
    throw error;
  }
  const t = (JSON.parse(stdout) as SfdiskJson).partitiontable;
  const sectorSize = t.sectorsize ?? 512;
  return {
    label: t.label,
    id: t.id,
    sectorSize,
    partitions: (t.partitions ?? []).map((p) => ({
      number: Number(/(\d+)$/.exec(p.node)?.[1] ?? 0),
      start: p.start * sectorSize,
      size: p.size * sectorSize,
      type: p.type.toUpperCase(),
      ...(p.uuid ? { uuid: p.uuid.toUpperCase() } : {}),
      ...(p.name ? { name: p.name } : {}),
    })),
  };
}
