// The mkfs tools, run on image files only: the installer builds each filesystem in a
// temporary file and copies its blocks into the partition, so no tool ever opens the
// target disk while the installer holds it exclusively.
import { run } from "./exec.ts";

/**
 * A FAT filesystem filling `file` (which must exist with its final size): FAT32 unless
 * `fat16` (removable media only, where UEFI allows FAT12 and FAT16 too; mkfs.vfat then
 * picks the cluster size).
 */
export async function makeVfat(
  file: string,
  options: { label: string; volumeId: string; fat16?: boolean; sectorSize?: number },
): Promise<void> {
  await run("mkfs.vfat", [
    // the disk's logical sector size (512 unless said): a FAT's sectors must be the disk's
    ...["-S", String(options.sectorSize ?? 512)],
    ...(options.fat16
      ? ["-F", "16"]
      : // one sector per cluster keeps FAT32 valid down to 32 MiB (mtools rejects fewer clusters)
        ["-F", "32", "-s", "1"]),
    "-n",
    options.label,
    "--invariant", // no timestamps or random bytes (it also sets the volume id: -i must follow it)
    "-i",
    options.volumeId, // 8 hex digits: fixed per partition, so a resumed install writes the same bytes
    file,
  ]);
}

/** An ext4 filesystem filling `file`, populated from `fromDir`. */
export async function makeExt4(
  file: string,
  options: { label: string; uuid: string; fromDir: string; epoch: number; blockSize?: number },
): Promise<void> {
  await run(
    "mkfs.ext4",
    [
      "-q",
      // a filesystem's blocks are at least the disk's sectors (the kernel refuses 1 KiB on 4Kn)
      ...(options.blockSize ? ["-b", String(options.blockSize)] : []),
      "-F", // it is a file, not a device: do not ask
      "-L",
      options.label,
      "-U",
      options.uuid,
      "-E",
      `root_owner=0:0,hash_seed=${options.uuid}`,
      "-d",
      options.fromDir,
      file,
    ],
    { env: { E2FSPROGS_FAKE_TIME: String(options.epoch) } },
  );
}
