// The partitions an MBR (DOS) partition table lists, from the disk's first sector. The
// protective entry of a GPT (type 0xEE) is not a partition.

export interface MbrPartition {
  /** Byte offsets (the MBR counts in logical sectors). */
  readonly start: number;
  readonly size: number;
}

export function mbrPartitions(sector0: Uint8Array, sectorSize = 512): MbrPartition[] {
  if (sector0.length < 512 || sector0[510] !== 0x55 || sector0[511] !== 0xaa) return [];
  const view = Buffer.from(sector0.buffer, sector0.byteOffset, 512);
  const found: MbrPartition[] = [];
  for (let i = 0; i < 4; i++) {
    const entry = 446 + 16 * i;
    const type = view[entry + 4];
    const first = view.readUInt32LE(entry + 8);
    const sectors = view.readUInt32LE(entry + 12);
    if (type !== 0 && type !== 0xee && sectors > 0)
      found.push({ start: first * sectorSize, size: sectors * sectorSize });
  }
  return found;
}
