// mkfs.erofs(1): the read-only root filesystem image of a release.
import { run } from "./exec.ts";

export async function makeErofs(
  image: string,
  tree: string,
  /** compress: lz4hc by default (smaller); lz4 for contents that hold noise (lz4hc spends minutes on it). */
  options: { epoch: number; uuid: string; compress?: "lz4hc" | "lz4" },
): Promise<void> {
  await run(
    "mkfs.erofs",
    [
      `-T${options.epoch}`, // every timestamp: two builds give the same bytes
      "-U",
      options.uuid,
      "--all-root", // owned by root whoever builds it
      // compressed: smaller slots to write and verify
      `-z${options.compress ?? "lz4hc"}`,
      // Physical clusters of up to 64 KiB rather than one 4 KiB block: Node.js takes 41 MiB
      // instead of 51 (the stick 105 MiB instead of 117), and a read ahead of its start
      // checks and unpacks a fifth less under emulation; a page read alone unpacks up to
      // 64 KiB, nothing next to a disk's read.
      "-C65536",
      image,
      tree,
    ],
    { timeoutMs: 600_000 },
  );
}
