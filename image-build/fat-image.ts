// A FAT image made from a folder (FAT32, or FAT16 for a small removable one): every file
// and folder dated SOURCE_DATE_EPOCH, no random volume id, so the same folder always gives
// the same bytes.
import { lutimes, readdir, rm, truncate, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { makeVfat } from "../tools/mkfs.ts";
import { copyTreesIntoFat } from "../tools/mtools.ts";

export async function buildFatImage(
  image: string,
  options: {
    size: number;
    label: string;
    volumeId: string;
    tree: string;
    epoch: number;
    fat16?: boolean;
  },
): Promise<void> {
  await setTimes(options.tree, options.epoch);
  await rm(image, { force: true });
  await writeFile(image, "");
  await truncate(image, options.size);
  await makeVfat(image, {
    label: options.label,
    volumeId: options.volumeId,
    ...(options.fat16 ? { fat16: true } : {}),
  });
  const top = (await readdir(options.tree)).sort().map((n) => join(options.tree, n));
  await copyTreesIntoFat(image, top);
}

async function setTimes(dir: string, epoch: number): Promise<void> {
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) await setTimes(path, epoch);
    await lutimes(path, epoch, epoch);
  }
  await lutimes(dir, epoch, epoch);
}
