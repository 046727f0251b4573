// mtools: writes and reads FAT images without mounting them (the host kernel has no vfat).
import { CommandError, type RunResult, run } from "./exec.ts";

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

/** The text of `path` in the FAT filesystem at byte `offset` of `disk`; undefined when no such file exists. */
export async function readFatFile(
  disk: string,
  offset: number,
  path: string,
): Promise<string | undefined> {
  return whenFound(
    run("mtype", [
      "-i",
      `${disk}@@${offset}`, // the filesystem starts at this byte: a partition read in place
      `::/${path}`,
    ]),
    (r) => r.stdout,
  );
}

/** The names in folder `dir` of the FAT filesystem at byte `offset` of `disk` (folders end in "/"); undefined when it does not exist. */
export async function listFatDir(
  disk: string,
  offset: number,
  dir: string,
): Promise<string[] | undefined> {
  return whenFound(
    run("mdir", [
      "-b", // bare: one full path a line, no header, no "." and ".."
      "-i",
      `${disk}@@${offset}`, // the filesystem starts at this byte: a partition read in place
      `::/${dir}`,
    ]),
    (r) =>
      r.stdout
        .split("\n")
        .filter((line) => line !== "")
        .map((line) => line.slice(line.lastIndexOf("/", line.length - 2) + 1)),
  );
}

// mtools exits 1 both for a missing file and for a filesystem it cannot read; only its
// message tells them apart.
async function whenFound<T>(
  running: Promise<RunResult>,
  read: (r: RunResult) => T,
): Promise<T | undefined> {
  try {
    return read(await running);
  } catch (error) {
    if (error instanceof CommandError && /File "[^"]*" not found$/m.test(error.stderrTail)) {
      return undefined;
    }
    throw error;
  }
}

/** Copies file `path` of the FAT filesystem `image` (`file@@offset` for one in a partition) to `dest`, bytes as they are. */
export async function copyOutOfFat(image: string, path: string, dest: string): Promise<void> {
  await run("mcopy", ["-i", image, "-n", `::/${path}`, dest]);
}
