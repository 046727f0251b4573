// zstd(1): compresses the initramfs (the Debian kernel unpacks zstd, CONFIG_RD_ZSTD).
import { run } from "./exec.ts";

export async function compressZstd(input: string, output: string, level = 9): Promise<void> {
  await run(
    "zstd",
    [
      "-q",
      "-f", // the output is ours to replace
      // 19 takes ~30 s on 2 cores for a Node.js initramfs; 9 is a few seconds and close in size.
      // Levels above 19 need --ultra; their window (at most the input's size) is what the
      // kernel must allocate to unpack, 32 MiB for a release's initramfs.
      ...(level > 19 ? ["--ultra"] : []),
      `-${level}`,
      "-T0", // all cores; the output does not depend on the thread count
      input,
      "-o",
      output,
    ],
    { timeoutMs: 600_000 },
  );
}
