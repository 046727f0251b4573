// The partitions an MBR (DOS) partition table lists, from the disk's first sector, and the
// logical partitions its extended partition chains (each EBR names its logical partition
// and the next EBR). A disk's bytes are untrusted: a second extended partition, or a chain
// that loops or leaves its extended partition makes the table implausible (docs/disks.md).
// An entry past the disk's end is not: a table made for a larger disk, or read in the other
// sector size, says so, and the probe looks only at what lies inside the disk. The
// protective entry of a GPT (type 0xEE) is not a partition.

export interface MbrPartition {
  /** Byte offsets (the MBR counts in logical sectors). */
  readonly start: number;
  readonly size: number;
}

export type MbrFlaw = "extended-twice" | "chain-loop" | "chain-outside" | "chain-long";

export type MbrVerdict =
  | { readonly state: "none" }
  | {
      readonly state: "valid";
      /** The four entries' partitions, the extended one among them. */
      readonly partitions: readonly MbrPartition[];
      readonly extended?: MbrPartition;
    }
  | { readonly state: "implausible"; readonly flaw: MbrFlaw };

// Types of an extended partition: DOS (0x05), Windows LBA (0x0F), Linux (0x85).
const EXTENDED = new Set([0x05, 0x0f, 0x85]);
const PROTECTIVE = 0xee;
/** Linux reads at most 256 partitions; a longer chain is no table a tool wrote. */
export const MAX_LOGICAL = 128;

interface Entry {
  readonly type: number;
  readonly first: number;
  readonly sectors: number;
}

/** The four entries of a boot record; undefined when the sector is none (libblkid's test). */
function entriesOf(sector: Uint8Array): Entry[] | undefined {
  if (sector.length < 512 || sector[510] !== 0x55 || sector[511] !== 0xaa) return undefined;
  const view = Buffer.from(sector.buffer, sector.byteOffset, 512);
  const entries: Entry[] = [];
  for (let i = 0; i < 4; i++) {
    const at = 446 + 16 * i;
    // A boot flag other than 0x00 or 0x80 is boot code, not a table (a FAT or NTFS boot
    // sector on a whole disk also ends in 55 AA): libblkid's dos prober says the same.
    const flag = view[at];
    if (flag !== 0x00 && flag !== 0x80) return undefined;
    entries.push({
      type: view[at + 4] ?? 0,
      first: view.readUInt32LE(at + 8),
      sectors: view.readUInt32LE(at + 12),
    });
  }
  return entries;
}

/** The table in the disk's first sector. */
export function judgeMbr(sector0: Uint8Array, sectorSize = 512): MbrVerdict {
  const entries = entriesOf(sector0);
  if (!entries) return { state: "none" };
  const used = entries.filter((e) => e.type !== 0 && e.type !== PROTECTIVE && e.sectors > 0);
  const partitions = used.map((e) => ({
    start: e.first * sectorSize,
    size: e.sectors * sectorSize,
  }));
  const extended = partitions.filter((_, i) => EXTENDED.has(used[i]?.type ?? 0));
  if (extended.length > 1) return { state: "implausible", flaw: "extended-twice" };
  return { state: "valid", partitions, ...(extended[0] ? { extended: extended[0] } : {}) };
}

/**
 * The logical partitions the chain of EBRs in `extended` names. `readSector` returns the
 * sector at a byte offset of the disk (undefined when it cannot be read: the chain ends
 * there). Each EBR and its logical partition must lie inside the extended partition, no
 * EBR twice, at most MAX_LOGICAL of them; the walk reads at most MAX_LOGICAL + 1 sectors.
 */
export async function logicalPartitions(
  extended: MbrPartition,
  sectorSize: number,
  readSector: (offset: number) => Promise<Uint8Array | undefined>,
): Promise<readonly MbrPartition[] | { readonly flaw: MbrFlaw }> {
  const end = extended.start + extended.size;
  const inside = (p: MbrPartition) => p.start >= extended.start && p.start + p.size <= end;
  const seen = new Set<number>();
  const logical: MbrPartition[] = [];
  for (let ebr = extended.start; ; ) {
    if (seen.has(ebr)) return { flaw: "chain-loop" };
    if (seen.size === MAX_LOGICAL) return { flaw: "chain-long" };
    seen.add(ebr);
    const entries = entriesOf((await readSector(ebr)) ?? new Uint8Array(0));
    if (!entries) return logical;
    // The first entry is the logical partition, relative to its EBR; the second the next
    // EBR, relative to the extended partition (the kernel's msdos.c reads them so).
    const [own, next] = entries;
    if (own && own.type !== 0 && own.sectors > 0) {
      const p = { start: ebr + own.first * sectorSize, size: own.sectors * sectorSize };
      if (!inside(p)) return { flaw: "chain-outside" };
      logical.push(p);
    }
    if (!next || !EXTENDED.has(next.type) || next.sectors === 0) return logical;
    ebr = extended.start + next.first * sectorSize;
    if (!inside({ start: ebr, size: sectorSize })) return { flaw: "chain-outside" };
  }
}
