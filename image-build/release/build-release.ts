// `liken-stick release`: builds an installable release (docs/design.md section 4) from the pinned
// Debian inputs: the kernel; a small initramfs that finds the slot, maps it through
// dm-verity and switch_roots into it; the root filesystem image (erofs with its verity hash
// tree) holding the boot agent, Node.js, the root's init and health checks, and the NIC
// drivers with their firmware;
// systemd-boot, boot-modules.json and release.toml. A test release is built as a variant
// (variant.ts), applied at named points of the same path.
import { chmod, copyFile, mkdir, readFile, rm, symlink, writeFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import { type Arch, archFacts, DEFAULT_ARCH } from "../../common/arch.ts";
import { NO_PROGRESS, numberedSteps, type Progress } from "../../common/progress.ts";
import { signedKernelOptions } from "../../formats/boot-entries.ts";
import { RELEASE_UKI, type Verity } from "../../formats/release.ts";
import { writeReleaseToml } from "../../formats/release-toml.ts";
import { RESOLV_CONF } from "../../formats/resolv-conf.ts";
import { makeErofs } from "../../tools/mkfs-erofs.ts";
import { UDHCPC_SCRIPT, UDHCPC_SCRIPT_TEXT } from "../../tools/udhcpc.ts";
import { bundleAgent } from "../bundle.ts";
import { installBundle } from "../code-cache.ts";
import { installTools } from "../copy-from-root.ts";
import { buildInitramfs } from "../initramfs.ts";
import {
  type BootModules,
  type FirmwareFile,
  readModuleIndex,
  releaseBootModules,
} from "../inputs/index.ts";
import { installModules } from "../modules-install.ts";
import { nodeReadAhead } from "../node-read-ahead.ts";
import type { KeySet } from "../secure-boot/keys.ts";
import { signedBootFiles } from "../secure-boot/uki.ts";
import { requireUnpackedInputs, type UnpackedInputs } from "../unpacked.ts";
import { appendVerityTree } from "../verity-image.ts";
import { releaseInit, watchdogOptions } from "./init-script.ts";
import { AGENT_BUNDLE, AGENT_START, rootInit } from "./root-init.ts";
import { installRootModules, moduleFirmware } from "./root-modules.ts";
import { AS_RELEASED, type ReleaseVariant, type RootFile } from "./variant.ts";

/** The disk drivers /init loads at once before it looks for the slot. */
const STORAGE_MODULES = ["virtio_pci", "virtio_blk", "virtio_scsi", "nvme", "ahci", "sd_mod"];

/**
 * What the installed machine's initramfs can load: its disks, the verified root, its state,
 * its crash records and the watchdogs of the machines it may run on.
 */
export const RELEASE_MODULES = [
  "virtio_pci",
  "virtio_blk",
  "virtio_scsi",
  "nvme",
  "ahci",
  "sd_mod",
  // the RAID controllers and HBAs of rack servers, and what virtual and embedded machines
  // boot from: loaded by modalias, so a machine loads only its own (docs/install.md,
  // Controllers and sector sizes)
  "megaraid_sas", // Broadcom/LSI MegaRAID: Dell PERC, Lenovo ThinkSystem RAID, Supermicro
  "mpt3sas", // Broadcom/LSI SAS2/SAS3 HBAs (9200 to 9500), PERC HBA330, IT-mode cards
  "mpi3mr", // Broadcom SAS4 tri-mode (9600), PERC 12
  "smartpqi", // Microchip SmartRAID/SmartHBA: HPE Gen10 and later (P408i, E208i)
  "hpsa", // HPE Smart Array Gen8 and Gen9 (P420i, P440ar)
  "aacraid", // Microchip/Adaptec Series 6 to 8 and SmartRAID 3100
  "mptsas", // LSI SAS1068/1078 (older HBAs, QEMU's mptsas1068)
  "mptspi", // LSI 53c1030 parallel SCSI (VMware's LSI Logic Parallel)
  "vmw_pvscsi", // VMware's paravirtual SCSI
  "hv_storvsc", // Hyper-V and Azure
  "xen_blkfront", // Xen and older EC2
  "usb_storage", // internal USB modules (Dell IDSDM, HPE's USB slot)
  "uas",
  "xhci_pci",
  "ehci_pci",
  "ohci_pci",
  "uhci_hcd",
  "mmc_block", // SD cards and eMMC behind a PCI SD host (HPE microSD, some edge servers)
  "sdhci_pci",
  "dm_mod",
  "dm_verity",
  "erofs",
  "efivarfs",
  "efi_pstore",
  // watchdogs, loaded by modalias (softdog when none matches): QEMU's i6300esb, Intel's
  // TCO (through lpc_ich), AMD's, the ACPI WDAT table's, and IPMI's on servers with a BMC
  "i6300esb",
  "sbsa_gwdt", // the SBSA generic watchdog of Arm servers (ACPI GTDT); arm64 only
  "lpc_ich",
  "iTCO_wdt",
  "sp5100_tco",
  "wdat_wdt",
  "ipmi_si",
  "ipmi_devintf",
  "ipmi_watchdog",
  "softdog",
  // the boot agent mounts the ESP to bless, reject and stage entries
  "vfat",
  "nls_cp437",
  "nls_ascii",
  "nls_utf8",
];

/** The initramfs's tools beside busybox: blkid finds a partition by PARTUUID, dmsetup maps verity. */
const INITRAMFS_TOOLS = ["sbin/blkid", "sbin/dmsetup"];

/** The root's tools beside busybox and Node.js, by their path in the unpacked packages. */
const ROOT_TOOLS = [
  // iproute2's: bonds, VLANs and JSON (busybox's ip has neither); the roots' PATH puts it
  // before busybox's applets
  "bin/ip",
  // [encryption] tpm = true: the boot agent opens the state partition and the storage roles
  "sbin/cryptsetup",
];

export interface ReleaseOptions {
  readonly version: string;
  readonly out: string;
  /** A test release's differences (testing/release-variant.ts); AS_RELEASED by default. */
  readonly variant?: ReleaseVariant;
  /** Sign with this key set's db: liken.efi (a unified kernel image) and systemd-boot. */
  readonly sign?: KeySet;
  /** Every timestamp in the outputs (SOURCE_DATE_EPOCH). */
  readonly epoch: number;
  /** The machines it boots; amd64 by default. */
  readonly arch?: Arch;
  readonly workDir: string;
  /** What the build is doing, for a person waiting on it. */
  readonly progress?: Progress;
}

export async function buildRelease(o: ReleaseOptions): Promise<void> {
  const progress = o.progress ?? NO_PROGRESS;
  const step = numberedSteps(progress, o.sign ? 6 : 5);
  const arch = o.arch ?? DEFAULT_ARCH;
  step(`the pinned inputs: Debian packages and Node.js for ${arch}`);
  const inputs: UnpackedInputs = await requireUnpackedInputs(progress, arch);
  await mkdir(o.out, { recursive: true });

  step("building the initramfs: busybox, blkid, dmsetup and the boot path's modules (zstd -22)");
  const tree = join(o.workDir, "initrd-tree");
  await rm(tree, { recursive: true, force: true });
  await mkdir(join(tree, "bin"), { recursive: true });
  await copyFile(inputs.busybox, join(tree, "bin", "busybox"));
  await installTools(inputs, tree, INITRAMFS_TOOLS);
  await writeFile(
    join(tree, "init"),
    releaseInit(o.version, STORAGE_MODULES, await nodeReadAhead(inputs.node)),
    { mode: 0o755 },
  );
  await mkdir(join(tree, "etc/modprobe.d"), { recursive: true });
  await writeFile(join(tree, "etc/modprobe.d/liken-watchdog.conf"), watchdogOptions());
  const modules = await installModules(inputs, tree, RELEASE_MODULES, variantOf(o).withoutModules);
  const firmware = await moduleFirmware(inputs, tree, modules, false);
  await buildInitramfs(tree, join(o.out, "initrd.img"), o.epoch, join(o.workDir, "initrd.cpio"), {
    // zstd's slowest level: the servers' storage drivers cost the initramfs 35 % at level 9
    // and 3 % here, for 10 s of a build; the kernel unpacks it as fast (docs/image.md)
    level: 22,
  });

  await copyFile(inputs.vmlinuz, join(o.out, "vmlinuz"));
  step("building the root: Node.js, the boot agent and its code cache, the NIC drivers");
  const root = await buildRootfs(o, inputs, join(o.workDir, "rootfs-tree"), step);
  if (o.sign) {
    step("signing liken.efi (the unified kernel image) and systemd-boot");
    const { loader, uki: signed } = await signedBootFiles(
      inputs,
      {
        initrd: await readFile(join(o.out, "initrd.img")),
        cmdline: signedKernelOptions(root.verity, arch),
        osRelease: osRelease(o.version),
      },
      o.sign.signers.db,
    );
    await writeFile(join(o.out, archFacts(arch).systemdBoot), loader);
    variantOf(o).afterSigning(signed);
    await writeFile(join(o.out, RELEASE_UKI), signed);
  } else {
    await copyFile(inputs.systemdBoot, join(o.out, archFacts(arch).systemdBoot));
    await rm(join(o.out, RELEASE_UKI), { force: true });
  }
  step("writing boot-modules.json and release.toml");
  for (const [name, files] of root.firmware) firmware.set(name, files);
  const listed = releaseBootModules(
    await readModuleIndex(inputs.root),
    modules,
    root.modules,
    firmware,
  );
  await writeFile(join(o.out, "boot-modules.json"), `${JSON.stringify(listed, null, 2)}\n`);
  await writeReleaseToml(
    o.out,
    o.version,
    inputs.kernelVersion,
    root.verity,
    o.sign !== undefined,
    arch,
  );
}

// The root: busybox, Node.js with its libraries, the boot agent, the init and the health
// checks, the NIC drivers and their firmware, the folders the boot mounts things on. Its
// verity hash tree goes after it.
async function buildRootfs(
  o: ReleaseOptions,
  inputs: UnpackedInputs,
  tree: string,
  step: (what: string) => void,
): Promise<{
  verity: Verity;
  modules: BootModules;
  firmware: Map<string, readonly FirmwareFile[]>;
}> {
  await rm(tree, { recursive: true, force: true });
  for (const dir of ["bin", "sbin", "etc/liken", "dev", "proc", "sys", "run", "tmp", "state"])
    await mkdir(join(tree, dir), { recursive: true });
  await mkdir(join(tree, "usr/lib/liken/health.d"), { recursive: true });
  await mkdir(join(tree, "usr/bin"), { recursive: true });
  await copyFile(inputs.busybox, join(tree, "bin", "busybox"));
  await writeFile(join(tree, "sbin/init"), rootInit(variantOf(o)), { mode: 0o755 });
  const { node } = inputs;
  await copyFile(node, join(tree, "usr/bin/node"));
  await chmod(join(tree, "usr/bin/node"), 0o755);
  // The root's tools and their libraries, with Node.js's: iproute2's ip builds the declared
  // network (busybox's applets, arping and udhcpc among them, are the rest).
  await installTools(inputs, tree, ROOT_TOOLS, [node]);
  // udhcpc configures a declared DHCP interface's lease through this script, and /etc is
  // read-only: resolv.conf is a link to the file the declared network writes under /run.
  await mkdir(join(tree, dirname(UDHCPC_SCRIPT).slice(1)), { recursive: true });
  await writeFile(join(tree, UDHCPC_SCRIPT.slice(1)), UDHCPC_SCRIPT_TEXT, { mode: 0o755 });
  await symlink(RESOLV_CONF, join(tree, "etc/resolv.conf"));
  await installBundle({
    tree,
    node,
    bundle: await bundleAgent(),
    at: AGENT_BUNDLE,
    start: AGENT_START,
    workDir: o.workDir,
    target: { arch: inputs.arch, sysroot: inputs.root },
  });
  await writeFile(
    join(tree, "etc/liken/release.json"),
    `${JSON.stringify({ version: o.version })}\n`,
  );
  for (const [name, text] of healthChecks())
    await writeFile(join(tree, "usr/lib/liken/health.d", name), text, { mode: 0o755 });
  await writeFile(join(tree, "usr/lib/os-release"), osRelease(o.version));
  await writeFile(join(tree, "etc/os-release"), osRelease(o.version));
  await writeFile(join(tree, "usr/lib/liken/version"), `${o.version}\n`);
  const modules = await installRootModules(inputs, tree, variantOf(o).withoutModules);
  // The kernel asks for modules itself (libphy for a NIC's PHY driver: r8169 fails without
  // realtek) by running /proc/sys/kernel/modprobe, which the initramfs set to /bin/modprobe
  // (the kernel's own default is /sbin/modprobe): both are busybox in the root too.
  for (const path of ["bin/modprobe", "sbin/modprobe"])
    await symlink("/bin/busybox", join(tree, path));
  const firmware = await moduleFirmware(inputs, tree, modules, true);
  await addRootFiles(tree, variantOf(o).rootFiles);
  const image = join(o.out, "rootfs.img");
  await rm(image, { force: true });
  step("compressing the root into rootfs.img (erofs), with its dm-verity hash tree");
  await makeErofs(image, tree, {
    epoch: o.epoch,
    uuid: versionUuid(o.version),
    compress: variantOf(o).compress,
  });
  const verity = await appendVerityTree(image);
  await variantOf(o).afterHashTree(image);
  return { verity, modules, firmware };
}

function osRelease(version: string): string {
  return [
    `NAME="liken"`,
    "ID=liken",
    `VERSION_ID=${version}`,
    `PRETTY_NAME="liken ${version}"`,
    "",
  ].join("\n");
}

// The test release's health checks (docs/rollback.md, What a release's root does): each
// executable in health.d exits 0 when healthy; its last line of output says why not.
export function healthChecks(): [string, string][] {
  return [
    [
      "10-os-release",
      "#!/bin/busybox sh\ngrep -q '^ID=liken$' /usr/lib/os-release || { echo 'the root has no liken os-release'; exit 1; }\n",
    ],
  ];
}

function variantOf(o: ReleaseOptions): ReleaseVariant {
  return o.variant ?? AS_RELEASED;
}

async function addRootFiles(tree: string, files: readonly RootFile[]): Promise<void> {
  for (const file of files) {
    await mkdir(dirname(join(tree, file.path)), { recursive: true });
    await writeFile(join(tree, file.path), file.bytes, { mode: file.mode });
  }
}

// A fixed filesystem UUID per version, so two builds of one release are byte-identical.
function versionUuid(version: string): string {
  const hex = Buffer.from(`liken-rootfs-${version}`).toString("hex").padEnd(32, "0").slice(0, 32);
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}
