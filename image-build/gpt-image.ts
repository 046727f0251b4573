// A disk image from partition images: a GPT with fixed GUIDs, then each image's data blocks
// at its partition's offset. Used for the stick.
import { open, rm, stat, truncate, writeFile } from "node:fs/promises";
import { MIB } from "../common/size.ts";
import { writeImage } from "../formats/write-image.ts";
import { writeGpt } from "../tools/sfdisk.ts";

export interface ImagePartition {
  readonly name: string;
  readonly typeGuid: string;
  readonly uuid: string;
  /** The partition's contents; the partition is this file's size rounded up to a MiB. */
  readonly image: string;
}

/** Writes `out`: 1 MiB, the partitions end to end, 1 MiB for the backup GPT. Returns their offsets. */
export async function buildGptImage(
  out: string,
  tableId: string,
  parts: readonly ImagePartition[],
): Promise<number[]> {
  const sizes = await Promise.all(
    parts.map(async (p) => Math.ceil((await stat(p.image)).size / MIB) * MIB),
  );
  const starts = sizes.map((_, i) => MIB + sizes.slice(0, i).reduce((a, b) => a + b, 0));
  const total = MIB + sizes.reduce((a, b) => a + b, 0) + MIB;
  await rm(out, { force: true });
  await writeFile(out, "");
  await truncate(out, total);
  await writeGpt(out, {
    id: tableId,
    sectorSize: 512,
    entries: parts.map((p, i) => ({
      start: starts[i] as number,
      size: sizes[i] as number,
      typeGuid: p.typeGuid,
      uuid: p.uuid,
      name: p.name,
    })),
  });
  const file = await open(out, "r+");
  try {
    for (const [i, p] of parts.entries()) await writeImage(file, p.image, starts[i] as number);
  } finally {
    await file.close();
  }
  return starts;
}
