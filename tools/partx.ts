// partx(8) (util-linux): tells the kernel which partitions of a disk to list.
import { CommandError, run } from "./exec.ts";

/**
 * Makes the kernel forget every partition it lists for the disk (BLKPG, one partition at a
 * time), whatever the disk's table says. Unlike a re-read of the table (BLKRRPART), which
 * Linux refuses while another process holds the disk with O_EXCL, this works under the
 * installer's exclusive hold; it fails only while a partition is open.
 */
export async function forgetPartitions(disk: string): Promise<void> {
  try {
    await run("partx", ["--delete", disk], { timeoutMs: 60_000 });
  } catch (error) {
    // partx asks sysfs for the highest partition number: with none listed, the range 1..0.
    if (error instanceof CommandError && /range <1:0> does not make sense/.test(error.stderrTail))
      return;
    throw error;
  }
}
