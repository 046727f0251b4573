// bmaptool(1): the block map that lets `bmaptool copy` write only a stick's data blocks.
import { writeFile } from "node:fs/promises";
import { run } from "./exec.ts";

export async function createBmap(image: string, bmap: string): Promise<void> {
  const { stdout } = await run("bmaptool", ["create", image], { timeoutMs: 300_000 });
  await writeFile(bmap, stdout);
}
