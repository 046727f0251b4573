// Which boot of the machine wrote a status document.
import { readFile } from "node:fs/promises";

/** The kernel's id for this boot, so a status tells which boot wrote it. */
export async function readBootId(): Promise<string> {
  // Without the kernel's boot id (not Linux), the status names no boot.
  return (await readFile("/proc/sys/kernel/random/boot_id", "utf8").catch(() => "")).trim();
}
