// losetup(8) from util-linux: a partition of a disk as a block device of its own, for the
// tools that format a device rather than a region (cryptsetup), without asking the kernel
// to read the disk's new partition table.
import { run } from "./exec.ts";

export interface LoopRegion {
  readonly offset: number;
  readonly size: number;
  /** The disk's logical sector size: a 4Kn disk's loop device must be 4Kn too. */
  readonly sectorSize: number;
}

/** Attaches `region` of `file`; returns the loop device. */
export async function attachLoop(file: string, region: LoopRegion): Promise<string> {
  const result = await run("losetup", [
    "--find",
    "--show",
    ...["--offset", String(region.offset), "--sizelimit", String(region.size)],
    ...["--sector-size", String(region.sectorSize)],
    file,
  ]);
  return result.stdout.trim();
}

export async function detachLoop(device: string): Promise<void> {
  await run("losetup", ["--detach", device]);
}
