// fsck.erofs(1): checks an erofs image and writes its files out, so tests read a release's
// root as the machine will, without mounting it (no loop device, no erofs module on the host).
import { run } from "./exec.ts";

/** Extracts every file of the erofs image (a release's rootfs.img: the hash tree after it is ignored) into `dir`. */
export async function extractErofs(image: string, dir: string): Promise<void> {
  await run("fsck.erofs", [`--extract=${dir}`, image], { timeoutMs: 5 * 60_000 });
}
