// An initramfs from a folder: the reproducible cpio archive, zstd-compressed, plus the two
// device nodes the kernel needs before /init runs (it opens /dev/console for init's stdio).
import { rm } from "node:fs/promises";
import { compressZstd } from "../tools/zstd.ts";
import { entriesOf, writeCpio } from "./cpio.ts";

export async function buildInitramfs(
  tree: string,
  out: string,
  epoch: number,
  scratch: string,
  options: { level?: number } = {},
): Promise<void> {
  const entries = [
    ...(await entriesOf(tree)).filter((e) => e.path !== "dev" && !e.path.startsWith("dev/")),
    { path: "dev", type: "dir" as const, mode: 0o755 },
    { path: "dev/console", type: "char" as const, mode: 0o600, major: 5, minor: 1 },
    { path: "dev/null", type: "char" as const, mode: 0o666, major: 1, minor: 3 },
  ];
  await writeCpio(scratch, entries, epoch);
  await compressZstd(scratch, out, options.level);
  await rm(scratch, { force: true });
}
