// The switch VM's kernel and initramfs, from the project's pinned inputs: the release's
// Debian kernel (the host's has no bonding, 8021q or bridge VLANs, Debian's has all three),
// busybox-static, the modules of init-script.ts with their closure, and its /init. Built
// reproducibly (the image build's cpio writer and module install) and kept in the build
// cache under the hash of what goes in: a test run builds it once, later runs find it.
import { createHash } from "node:crypto";
import { copyFile, mkdir, mkdtemp, readFile, rename, rm, stat, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { repoRoot } from "../../common/repo-root.ts";
import { buildEpoch } from "../../image-build/epoch.ts";
import { buildInitramfs } from "../../image-build/initramfs.ts";
import { defaultCacheDir, packagesLockPath } from "../../image-build/inputs/index.ts";
import { installModules } from "../../image-build/modules-install.ts";
import { requireUnpackedInputs } from "../../image-build/unpacked.ts";
import { SWITCH_MODULES, switchInit } from "./init-script.ts";
import { writeKernelElf } from "./kernel-elf.ts";

export interface SwitchBootFiles {
  readonly kernel: string;
  readonly initrd: string;
}

// The code whose change changes the initramfs's bytes, beside the lock file and the /init.
const BUILDER_SOURCES = [
  "testing/switch-vm/initramfs.ts",
  "testing/switch-vm/kernel-elf.ts",
  "image-build/cpio.ts",
  "image-build/initramfs.ts",
  "image-build/modules-install.ts",
  "image-build/inputs/modules.ts",
  "tools/zstd.ts",
  "tools/xz.ts",
];

let built: Promise<SwitchBootFiles> | undefined;

/** The switch VM's kernel and initramfs: from the cache, or built there (once a process). */
export function switchBootFiles(): Promise<SwitchBootFiles> {
  built ??= cachedBootFiles().catch((error: unknown) => {
    built = undefined;
    throw error;
  });
  return built;
}

async function cachedBootFiles(): Promise<SwitchBootFiles> {
  const dir = join(defaultCacheDir("builds"), `switch-vm-${await inputsHash()}`);
  const files = { kernel: join(dir, "vmlinux"), initrd: join(dir, "initrd.img") };
  if (await stat(dir).catch(() => undefined)) return files;
  await mkdir(defaultCacheDir("builds"), { recursive: true });
  const work = await mkdtemp(join(defaultCacheDir("builds"), ".work-switch-vm-"));
  try {
    const out = join(work, "out");
    await buildSwitchBootFiles(out, join(work, "scratch"));
    await rename(out, dir).catch((error: NodeJS.ErrnoException) => {
      // Another test process built the same inputs first: its files are the same bytes.
      if (error.code !== "ENOTEMPTY" && error.code !== "EEXIST") throw error;
    });
  } finally {
    await rm(work, { recursive: true, force: true });
  }
  return files;
}

/** Builds `out/vmlinux` and `out/initrd.img`; `scratch` is left for the caller to remove. */
export async function buildSwitchBootFiles(out: string, scratch: string): Promise<void> {
  const inputs = await requireUnpackedInputs();
  const tree = join(scratch, "tree");
  await mkdir(join(tree, "bin"), { recursive: true });
  await copyFile(inputs.busybox, join(tree, "bin", "busybox"));
  await writeFile(join(tree, "init"), switchInit(), { mode: 0o755 });
  await installModules(inputs, tree, SWITCH_MODULES);
  await mkdir(out, { recursive: true });
  await buildInitramfs(tree, join(out, "initrd.img"), buildEpoch(), join(scratch, "initrd.cpio"));
  await writeKernelElf(inputs.vmlinuz, join(out, "vmlinux"));
}

async function inputsHash(): Promise<string> {
  const hash = createHash("sha256");
  hash.update(await readFile(packagesLockPath("amd64")));
  hash.update(switchInit());
  hash.update(JSON.stringify({ modules: SWITCH_MODULES, epoch: buildEpoch() }));
  for (const f of BUILDER_SOURCES) hash.update(await readFile(join(repoRoot(), f)));
  return hash.digest("hex").slice(0, 20);
}
