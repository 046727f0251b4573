// mkfs.erofs(1): the read-only root filesystem image of a release.
import { run } from "./exec.ts";

export async function makeErofs(
  image: string,
  tree: string,
  options: { epoch: number; uuid: string },
): Promise<void> {
  await run(
    "mkfs.erofs",
    [
      `-T${options.epoch}`, // every timestamp: two builds give the same bytes
      "-U",
      options.uuid,
      "--all-root", // owned by root whoever builds it
      "-zlz4hc", // compressed: smaller slots to write and verify
      image,
      tree,
    ],
    { timeoutMs: 600_000 },
  );
}
