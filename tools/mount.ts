// mount(8), umount(8) and sync(1) as the installed machine's initramfs has them (busybox
// applets): the boot agent mounts the ESP, the state partition, an update medium and pstore.
import { run } from "./exec.ts";

export async function mount(
  device: string,
  target: string,
  type: string,
  options: readonly string[] = [],
): Promise<void> {
  const o = options.length > 0 ? ["-o", options.join(",")] : [];
  await run("mount", ["-t", type, ...o, device, target], { timeoutMs: 60_000 });
}

/** Unmounts each target; fails when one did not unmount (the others are unmounted still). */
export async function umount(...targets: readonly string[]): Promise<void> {
  await run("umount", [...targets], { timeoutMs: 60_000 });
}

/** Writes every dirty buffer of every filesystem out (before a reboot). */
export async function syncAll(): Promise<void> {
  await run("sync", [], { timeoutMs: 120_000 });
}
