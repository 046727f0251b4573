// Makes a root filesystem image verifiable by dm-verity: pads it to whole 4096-byte blocks
// and appends its hash tree, so one file (one slot) carries both. The boot entry names the
// root hash and the block count, which is where the tree starts.
import { appendFile, readFile, rm, stat, truncate } from "node:fs/promises";
import type { Verity } from "../formats/release.ts";
import { formatVerity, VERITY_BLOCK } from "../tools/veritysetup.ts";

export async function appendVerityTree(image: string): Promise<Verity> {
  const size = (await stat(image)).size;
  const dataBlocks = Math.ceil(size / VERITY_BLOCK);
  await truncate(image, dataBlocks * VERITY_BLOCK);
  const tree = `${image}.verity`;
  try {
    const rootHash = await formatVerity(image, tree);
    await appendFile(image, await readFile(tree));
    return { rootHash, dataBlocks };
  } finally {
    await rm(tree, { force: true });
  }
}
