// mkfs.erofs(1): the read-only root filesystem image of a release.
import { run } from "./exec.ts";

export async function makeErofs(
  image: string,
  tree: string,
  /** compress: false for contents that do not compress (lz4hc spends minutes on noise). */
  options: { epoch: number; uuid: string; compress?: boolean },
): Promise<void> {
  await run(
    "mkfs.erofs",
    [
      `-T${options.epoch}`, // every timestamp: two builds give the same bytes
      "-U",
      options.uuid,
      "--all-root", // owned by root whoever builds it
      // compressed: smaller slots to write and verify
      ...(options.compress === false ? [] : ["-zlz4hc"]),
      image,
      tree,
    ],
    { timeoutMs: 600_000 },
  );
}
