// Builds small, real releases for the install tests: an erofs root filesystem holding
// os-release and `dataBytes` of deterministic noise, stand-in kernel, initrd and boot
// loader files, and a release.toml with every size and sha256 (docs/design.md section 4).
// The QEMU tests boot releases that `liken-stick release` builds; these only get written.
import { createHash } from "node:crypto";
import { mkdir, readFile, rm, truncate, writeFile } from "node:fs/promises";
import { join } from "node:path";
import type { Verity } from "../formats/release.ts";
import { writeReleaseToml } from "../formats/release-toml.ts";
import { appendVerityTree } from "../image-build/verity-image.ts";
import { run } from "../tools/exec.ts";

export interface TestReleaseOptions {
  readonly version: string;
  /** Bytes of incompressible data in the root filesystem. */
  readonly dataBytes?: number;
  /** Pad rootfs.img (sparse) to this size: a large release without a large build. */
  readonly rootfsSize?: number;
}

export async function makeTestRelease(dir: string, options: TestReleaseOptions): Promise<string> {
  await mkdir(dir, { recursive: true });
  const root = join(dir, ".rootfs-tree");
  await rm(root, { recursive: true, force: true });
  await mkdir(join(root, "etc"), { recursive: true });
  await writeFile(
    join(root, "etc", "os-release"),
    `NAME=liken\nID=liken\nVERSION_ID=${options.version}\n`,
  );
  await writeFile(
    join(root, "data.bin"),
    noise(`data-${options.version}`, options.dataBytes ?? 256 * 1024),
  );
  await rm(join(dir, "rootfs.img"), { force: true });
  await run("mkfs.erofs", [
    "-T0",
    "-U",
    "11111111-2222-3333-4444-555555555555",
    "--all-root",
    join(dir, "rootfs.img"),
    root,
  ]);
  await rm(root, { recursive: true, force: true });
  const verity = await appendVerityTree(join(dir, "rootfs.img"));
  await writeFile(join(dir, ".verity.json"), JSON.stringify(verity));
  if (options.rootfsSize) await truncate(join(dir, "rootfs.img"), options.rootfsSize);
  await writeFile(join(dir, "vmlinuz"), noise(`kernel-${options.version}`, 64 * 1024));
  await writeFile(join(dir, "initrd.img"), noise(`initrd-${options.version}`, 32 * 1024));
  await writeFile(join(dir, "systemd-bootx64.efi"), noise("systemd-boot", 16 * 1024));
  await writeFile(
    join(dir, "boot-modules.json"),
    `${JSON.stringify({ modules: [], builtin: [], aliases: [] })}\n`,
  );
  await writeReleaseTomlFor(dir, options.version);
  return dir;
}

/** Writes release.toml for the files in `dir` as they are now. */
export async function writeReleaseTomlFor(dir: string, version: string): Promise<void> {
  const verity = JSON.parse(await readFile(join(dir, ".verity.json"), "utf8")) as Verity;
  await writeReleaseToml(dir, version, "6.1.0-test-amd64", verity);
}

// Deterministic bytes that do not compress: SHA-256 in counter mode.
function noise(seed: string, length: number): Buffer {
  const out = Buffer.alloc(length);
  for (let i = 0, block = 0; i < length; block++) {
    const h = createHash("sha256").update(`${seed}:${block}`).digest();
    i += h.copy(out, i);
  }
  return out;
}
