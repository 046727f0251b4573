// blkdiscard(8): tells the device that a range of blocks no longer holds data.
import { CommandError, run } from "./exec.ts";

/** Discards a byte range of a block device; a device that cannot discard is not an error. */
export async function discardRange(
  device: string,
  offset: number,
  length: number,
): Promise<boolean> {
  if (length <= 0) return false;
  try {
    await run(
      "blkdiscard",
      [
        "--force", // no O_EXCL: the installer itself holds the device exclusively
        "--offset",
        String(offset),
        "--length",
        String(length),
        device,
      ],
      { timeoutMs: 600_000 },
    );
    return true;
  } catch (error) {
    if (
      error instanceof CommandError &&
      /not supported|Operation not supported/i.test(error.stderrTail)
    )
      return false;
    throw error;
  }
}
