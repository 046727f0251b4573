// reboot(8) with -f (busybox): reboot(2) at once, no init to ask. The boot agent calls it
// after it has synced and unmounted what it wrote.
import { run } from "./exec.ts";

export async function rebootNow(): Promise<void> {
  await run("reboot", ["-f"], { timeoutMs: 30_000 });
}
