// xz(1): decompresses files. Debian's kernel ships its modules as .ko.xz; the image build
// stores them decompressed, so the initramfs needs no xz-capable module loader.
import { run } from "./exec.ts";

const FILES_PER_RUN = 400; // keeps each command line far below ARG_MAX

/** Replaces each `*.xz` file with its decompressed content (the name without `.xz`). */
export async function decompressInPlace(files: readonly string[]): Promise<void> {
  const batches: string[][] = [];
  for (let i = 0; i < files.length; i += FILES_PER_RUN)
    batches.push(files.slice(i, i + FILES_PER_RUN));
  // xz decompresses one file at a time: two runs at once use both cores of a build machine
  const queue = [...batches];
  const worker = async () => {
    for (let batch = queue.shift(); batch; batch = queue.shift()) {
      await run(
        "xz",
        [
          "--decompress",
          "--force", // overwrite an output left by an interrupted build
          "--quiet",
          "--", // every argument after this is a file
          ...batch,
        ],
        { timeoutMs: 10 * 60_000 },
      );
    }
  };
  await Promise.all([worker(), worker()]);
}
