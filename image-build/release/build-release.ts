// `liken-stick release`: builds an installable release (docs/design.md section 4) from the pinned
// Debian inputs: the kernel, an initramfs holding the boot agent and the modules the boot
// path may load, the root filesystem image (erofs), systemd-boot, boot-modules.json and
// release.toml. Test releases take fault knobs and can leave modules out.
import { createCipheriv, createHash } from "node:crypto";
import { copyFile, mkdir, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { MIB } from "../../common/size.ts";
import { writeReleaseToml } from "../../formats/release-toml.ts";
import { makeErofs } from "../../tools/mkfs-erofs.ts";
import { bundleAgent } from "../bundle.ts";
import { copyFromRoot } from "../copy-from-root.ts";
import { buildInitramfs } from "../initramfs.ts";
import { requireNodeBinary, resolveLibraries } from "../inputs/index.ts";
import { installModules } from "../modules-install.ts";
import { requireUnpackedInputs } from "../unpacked.ts";
import { releaseInit } from "./init-script.ts";

/** The disk drivers /init loads before it looks for the state partition. */
const STORAGE_MODULES = ["virtio_pci", "virtio_blk", "virtio_scsi", "nvme", "ahci", "sd_mod"];

/** What the installed machine's initramfs can load: its disks, its state, its crash records, its watchdog. */
export const RELEASE_MODULES = [
  "virtio_pci",
  "virtio_blk",
  "virtio_scsi",
  "nvme",
  "ahci",
  "sd_mod",
  "ext4",
  "crc32c_generic", // ext4 asks the crypto API for crc32c at mount
  "erofs",
  "efivarfs",
  "efi_pstore",
  "i6300esb",
  // the boot agent mounts the ESP to bless, reject and stage entries
  "vfat",
  "nls_cp437",
  "nls_ascii",
  "nls_utf8",
];

export interface ReleaseOptions {
  readonly version: string;
  readonly out: string;
  readonly withoutModules?: readonly string[];
  readonly fault?: "health" | "panic" | "hang";
  /** MiB of deterministic noise in the root filesystem: a release whose slot write takes a while (the power-loss test). */
  readonly noiseMiB?: number;
  /** Every timestamp in the outputs (SOURCE_DATE_EPOCH). */
  readonly epoch: number;
  readonly workDir: string;
}

export async function buildRelease(o: ReleaseOptions): Promise<void> {
  const inputs = await requireUnpackedInputs();
  await mkdir(o.out, { recursive: true });

  const tree = join(o.workDir, "initrd-tree");
  await rm(tree, { recursive: true, force: true });
  await mkdir(join(tree, "bin"), { recursive: true });
  await copyFile(inputs.busybox, join(tree, "bin", "busybox"));
  await writeFile(join(tree, "init"), releaseInit(STORAGE_MODULES), { mode: 0o755 });
  await installAgent(tree, { version: o.version, fault: o.fault ?? null }, inputs.root);
  const modules = await installModules(inputs, tree, RELEASE_MODULES, o.withoutModules ?? []);
  await buildInitramfs(tree, join(o.out, "initrd.img"), o.epoch, join(o.workDir, "initrd.cpio"));

  await copyFile(inputs.vmlinuz, join(o.out, "vmlinuz"));
  await copyFile(inputs.systemdBoot, join(o.out, "systemd-bootx64.efi"));
  await writeFile(join(o.out, "boot-modules.json"), `${JSON.stringify(modules, null, 2)}\n`);
  await buildRootfs(o, join(o.workDir, "rootfs-tree"));
  await writeReleaseToml(o.out, o.version, inputs.kernelVersion);
}

// The boot agent: Node.js with the libraries it loads, the bundle, and what the release is.
async function installAgent(
  tree: string,
  release: { version: string; fault: string | null },
  root: string,
): Promise<void> {
  const node = await requireNodeBinary();
  await mkdir(join(tree, "usr/bin"), { recursive: true });
  await mkdir(join(tree, "usr/lib/liken"), { recursive: true });
  await mkdir(join(tree, "etc/liken"), { recursive: true });
  await copyFile(node, join(tree, "usr/bin/node"));
  await copyFile(await bundleAgent(), join(tree, "usr/lib/liken/agent.mjs"));
  await writeFile(join(tree, "etc/liken/release.json"), `${JSON.stringify(release)}\n`);
  for (const path of await resolveLibraries([node], root)) await copyFromRoot(root, path, tree);
}

async function buildRootfs(o: ReleaseOptions, tree: string): Promise<void> {
  await rm(tree, { recursive: true, force: true });
  await mkdir(join(tree, "etc"), { recursive: true });
  await mkdir(join(tree, "usr/lib/liken"), { recursive: true });
  const osRelease = [
    `NAME="liken"`,
    "ID=liken",
    `VERSION_ID=${o.version}`,
    `PRETTY_NAME="liken ${o.version}"`,
    "",
  ].join("\n");
  await writeFile(join(tree, "usr/lib/os-release"), osRelease);
  await writeFile(join(tree, "etc/os-release"), osRelease);
  await writeFile(join(tree, "usr/lib/liken/version"), `${o.version}\n`);
  if (o.noiseMiB)
    await writeFile(join(tree, "usr/lib/liken/noise.bin"), noise(o.version, o.noiseMiB));
  await rm(join(o.out, "rootfs.img"), { force: true });
  await makeErofs(join(o.out, "rootfs.img"), tree, {
    epoch: o.epoch,
    uuid: versionUuid(o.version),
    compress: !o.noiseMiB,
  });
}

// AES-CTR over zeros, keyed by the version: incompressible, and the same bytes every build.
function noise(version: string, mib: number): Buffer {
  const key = createHash("sha256").update(`liken-noise-${version}`).digest();
  return createCipheriv("aes-256-ctr", key, Buffer.alloc(16)).update(Buffer.alloc(mib * MIB));
}

// A fixed filesystem UUID per version, so two builds of one release are byte-identical.
function versionUuid(version: string): string {
  const hex = Buffer.from(`liken-rootfs-${version}`).toString("hex").padEnd(32, "0").slice(0, 32);
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}
