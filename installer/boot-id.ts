// Which boot of the machine wrote a status document.
import { readFile } from "node:fs/promises";

/** The kernel's id for this boot, so a status tells which boot wrote it. */
export async function readBootId(): Promise<string> {
  return (await readFile("/proc/sys/kernel/random/boot_id", "utf8").catch(() => "")).trim();
}
