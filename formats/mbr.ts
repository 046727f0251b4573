// Counts the partitions an MBR (DOS) partition table lists, from the disk's first sector.
// The protective entry of a GPT (type 0xEE) is not a partition.

export function countMbrPartitions(sector0: Uint8Array): number {
  if (sector0.length < 512 || sector0[510] !== 0x55 || sector0[511] !== 0xaa) return 0;
  let count = 0;
  for (let i = 0; i < 4; i++) {
    const entry = 446 + 16 * i;
    const type = sector0[entry + 4];
    const sectors = Buffer.from(sector0.buffer, sector0.byteOffset + entry + 12, 4).readUInt32LE(0);
    if (type !== 0 && type !== 0xee && sectors > 0) count++;
  }
  return count;
}
