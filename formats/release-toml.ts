// Writes release.toml (docs/design.md section 4): the version, the kernel version, and the size
// and sha256 of every file, which the installer verifies before it writes anything.
import { createHash } from "node:crypto";
import { createReadStream } from "node:fs";
import { stat, writeFile } from "node:fs/promises";
import { join } from "node:path";
import type { Arch } from "../common/arch.ts";
import { MIB } from "../common/size.ts";
import { RELEASE_UKI, releaseFiles, type Verity } from "./release.ts";

export async function writeReleaseToml(
  dir: string,
  version: string,
  kernel: string,
  verity: Verity,
  signed = false,
  arch: Arch = "amd64",
): Promise<void> {
  const lines = [
    `version = "${version}"`,
    `kernel = "${kernel}"`,
    `arch = "${arch}"`,
    "",
    "[files]",
  ];
  for (const name of signed ? [...releaseFiles(arch), RELEASE_UKI] : releaseFiles(arch)) {
    const path = join(dir, name);
    const hash = createHash("sha256");
    for await (const chunk of createReadStream(path, { highWaterMark: 4 * MIB }))
      hash.update(chunk as Buffer);
    lines.push(
      `"${name}" = { sha256 = "${hash.digest("hex")}", size = ${(await stat(path)).size} }`,
    );
  }
  lines.push(
    "",
    "[verity]",
    `root_hash = "${verity.rootHash}"`,
    `data_blocks = ${verity.dataBlocks}`,
  );
  await writeFile(join(dir, "release.toml"), `${lines.join("\n")}\n`);
}
