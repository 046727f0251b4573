// mtools: writes files into FAT images without mounting them (the host kernel has no vfat).
import { run } from "./exec.ts";

/** Creates each directory (parents first) in the FAT image. */
export async function makeFatDirs(image: string, dirs: readonly string[]): Promise<void> {
  if (dirs.length === 0) return;
  await run("mmd", ["-i", image, ...dirs.map((d) => `::/${d}`)]);
}

/** Copies a host file into the FAT image at `target` (a path like "EFI/BOOT/BOOTX64.EFI"). */
export async function copyIntoFat(image: string, source: string, target: string): Promise<void> {
  await run("mcopy", [
    "-i",
    image,
    "-o", // overwrite: a resumed install writes the same file again
    "-m", // keep the source's mtime instead of the clock's
    source,
    `::/${target}`,
  ]);
}

/** Copies whole host trees into the FAT image's root, keeping their mtimes (for reproducible images). */
export async function copyTreesIntoFat(image: string, sources: readonly string[]): Promise<void> {
  if (sources.length === 0) return;
  await run("mcopy", [
    "-i",
    image,
    "-s", // recursive
    "-m", // keep mtimes: the builder sets them all to SOURCE_DATE_EPOCH
    "-Q", // stop at the first error
    ...sources,
    "::/",
  ]);
}
