// Every pinned Debian package unpacked into one tree, once per lock file: the cache keeps
// it under the lock's hash, so a rebuild with nothing changed unpacks nothing.
import { createHash } from "node:crypto";
import { mkdir, readdir, readFile, rename, rm, stat, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { NO_PROGRESS, type Progress } from "../common/progress.ts";
import {
  defaultCacheDir,
  PACKAGES_LOCK,
  requireDebianPackages,
  requireNodeBinary,
  unpackDebs,
} from "./inputs/index.ts";

export interface UnpackedInputs {
  /** The unpacked packages, like a root filesystem. */
  readonly root: string;
  /** `6.1.0-57-amd64` */
  readonly kernelVersion: string;
  readonly vmlinuz: string;
  readonly systemdBoot: string;
  /** systemd's EFI stub, which unified kernel images are built on. */
  readonly efiStub: string;
  readonly busybox: string;
  /** iPXE for UEFI that drives the NIC through the firmware (SNP): what netboot's PXE clients load. */
  readonly ipxe: string;
}

/**
 * The pinned inputs, fetched the first time (`progress` says what is downloaded and how
 * much is left): every Debian package unpacked, and Node.js in the cache.
 */
export async function requireUnpackedInputs(
  progress: Progress = NO_PROGRESS,
): Promise<UnpackedInputs> {
  const lockHash = createHash("sha256")
    .update(await readFile(PACKAGES_LOCK))
    .digest("hex")
    .slice(0, 16);
  const root = join(defaultCacheDir("unpacked"), lockHash);
  // No .complete mark: the packages are unpacked again.
  if (!(await stat(join(root, ".complete")).catch(() => undefined))) {
    const debs = await requireDebianPackages(undefined, progress);
    const staging = `${root}.partial-${process.pid}`;
    await rm(staging, { recursive: true, force: true });
    await mkdir(staging, { recursive: true });
    await unpackDebs([...debs.values()], staging, progress);
    await writeFile(join(staging, ".complete"), `${new Date().toISOString()}\n`);
    await rm(root, { recursive: true, force: true });
    await rename(staging, root);
  }
  await requireNodeBinary(undefined, progress);
  const [kernelVersion] = await readdir(join(root, "lib", "modules"));
  if (!kernelVersion) throw new Error(`no kernel under ${root}/lib/modules`);
  return {
    root,
    kernelVersion,
    vmlinuz: join(root, "boot", `vmlinuz-${kernelVersion}`),
    systemdBoot: join(root, "usr/lib/systemd/boot/efi/systemd-bootx64.efi"),
    efiStub: join(root, "usr/lib/systemd/boot/efi/linuxx64.efi.stub"),
    busybox: join(root, "bin", "busybox"),
    ipxe: join(root, "usr/lib/ipxe/snponly.efi"),
  };
}
