// Every pinned Debian package of an arch unpacked into one tree, once per lock file: the
// cache keeps it under the lock's hash, so a rebuild with nothing changed unpacks nothing,
// and each arch's tree sits under its own lock's hash.
import { createHash } from "node:crypto";
import { mkdir, readdir, readFile, rename, rm, stat, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { type Arch, archFacts, DEFAULT_ARCH } from "../common/arch.ts";
import { NO_PROGRESS, type Progress } from "../common/progress.ts";
import {
  defaultCacheDir,
  packagesLockPath,
  requireDebianPackages,
  requireNodeBinary,
  unpackDebs,
} from "./inputs/index.ts";

/** The unpacked inputs of one arch. */
export interface UnpackedInputs {
  readonly arch: Arch;
  /** The unpacked packages, like a root filesystem. */
  readonly root: string;
  /** `6.1.0-57-amd64` */
  readonly kernelVersion: string;
  readonly vmlinuz: string;
  /** systemd-boot for the arch (systemd-bootx64.efi, systemd-bootaa64.efi). */
  readonly systemdBoot: string;
  /** systemd's EFI stub, which unified kernel images are built on. */
  readonly efiStub: string;
  readonly busybox: string;
  /**
   * iPXE for UEFI that drives the NIC through the firmware (SNP): what netboot's PXE clients
   * load. Debian ships it for x86-64 only: undefined on arm64.
   */
  readonly ipxe: string | undefined;
  /** The arch's verified Node.js binary, in the cache (not in `root`). */
  readonly node: string;
}

/**
 * The pinned inputs of `arch`, fetched the first time (`progress` says what is downloaded
 * and how much is left): every Debian package unpacked, and Node.js in the cache.
 */
export async function requireUnpackedInputs(
  progress: Progress = NO_PROGRESS,
  arch: Arch = DEFAULT_ARCH,
): Promise<UnpackedInputs> {
  const lockHash = createHash("sha256")
    .update(await readFile(packagesLockPath(arch)))
    .digest("hex")
    .slice(0, 16);
  const root = join(defaultCacheDir("unpacked"), lockHash);
  // No .complete mark: the packages are unpacked again.
  if (!(await stat(join(root, ".complete")).catch(() => undefined))) {
    const debs = await requireDebianPackages(undefined, progress, arch);
    const staging = `${root}.partial-${process.pid}`;
    await rm(staging, { recursive: true, force: true });
    await mkdir(staging, { recursive: true });
    await unpackDebs([...debs.values()], staging, progress);
    await writeFile(join(staging, ".complete"), `${new Date().toISOString()}\n`);
    await rm(root, { recursive: true, force: true });
    await rename(staging, root);
  }
  const node = await requireNodeBinary(undefined, progress, arch);
  const [kernelVersion] = await readdir(join(root, "lib", "modules"));
  if (!kernelVersion) throw new Error(`no kernel under ${root}/lib/modules`);
  const facts = archFacts(arch);
  const efi = join(root, "usr/lib/systemd/boot/efi");
  return {
    arch,
    root,
    kernelVersion,
    vmlinuz: join(root, "boot", `vmlinuz-${kernelVersion}`),
    systemdBoot: join(efi, facts.systemdBoot),
    efiStub: join(efi, facts.efiStub),
    busybox: join(root, "bin", "busybox"),
    ipxe: arch === "amd64" ? join(root, "usr/lib/ipxe/snponly.efi") : undefined,
    node,
  };
}
