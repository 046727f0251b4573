// veritysetup(8) format: the dm-verity hash tree of a release's root filesystem, computed on
// the host (it needs no device-mapper). The tree has no superblock and no salt, so the same
// data gives the same bytes; the kernel's verity table carries every parameter instead.
import { LikenError } from "../common/errors.ts";
import { run } from "./exec.ts";

export const VERITY_BLOCK = 4096;

/** Writes the hash tree of `data` (a multiple of 4096 bytes) to `hashFile`; returns the root hash. */
export async function formatVerity(data: string, hashFile: string): Promise<string> {
  const result = await run(
    "veritysetup",
    [
      "format",
      "--no-superblock",
      "--salt=-",
      "--hash=sha256",
      `--data-block-size=${VERITY_BLOCK}`,
      `--hash-block-size=${VERITY_BLOCK}`,
      data,
      hashFile,
    ],
    { timeoutMs: 600_000 },
  );
  const rootHash = /^Root hash:\s+([0-9a-f]{64})\s*$/m.exec(result.stdout)?.[1];
  if (!rootHash)
    throw new LikenError({
      kind: "failed",
      what: `veritysetup format ${data} printed no root hash`,
      hint: "check that cryptsetup-bin is installed and works: veritysetup --version",
    });
  return rootHash;
}
