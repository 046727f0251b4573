// `liken-stick image`: builds the stick (docs/design.md section 8, docs/image.md What the
// stick holds): a GPT image whose ESP holds systemd-boot, the kernel and a small initramfs
// (busybox, blkid, dmsetup and the drivers that find the stick), and whose payload partition
// holds the manifest, the release, their checksums and the stick's root: a squashfs image
// with its dm-verity hash tree holding Node.js, the bundled app, the installer's tools and
// their libraries, and every storage, USB and NIC driver. The initramfs carries the hashes
// that check the payload. Every GUID and timestamp is fixed, so the same inputs give the
// same bytes.
import { createHash } from "node:crypto";
import {
  copyFile,
  cp,
  lstat,
  mkdir,
  readdir,
  readFile,
  rm,
  symlink,
  writeFile,
} from "node:fs/promises";
import { dirname, join } from "node:path";
import { type Arch, archFacts } from "../../common/arch.ts";
import { LikenError } from "../../common/errors.ts";
import { NO_PROGRESS, numberedSteps, type Progress } from "../../common/progress.ts";
import { MIB } from "../../common/size.ts";
import { consoleOptions, loaderConf } from "../../formats/boot-entries.ts";
import { PARTITION_TYPES } from "../../formats/gpt-types.ts";
import { STICK_PCI_IDS } from "../../formats/pci-ids.ts";
import type { Verity } from "../../formats/release.ts";
import { requireRelease } from "../../formats/release.ts";
import { RESOLV_CONF } from "../../formats/resolv-conf.ts";
import { inPayload, PAYLOAD_MOUNT, STICK_PAYLOAD } from "../../formats/stick-payload.ts";
import { createBmap } from "../../tools/bmaptool.ts";
import { extractErofs } from "../../tools/fsck-erofs.ts";
import { makeSquashfs } from "../../tools/mksquashfs.ts";
import { UDHCPC_SCRIPT, UDHCPC_SCRIPT_TEXT } from "../../tools/udhcpc.ts";
import { makeHybridIso } from "../../tools/xorriso.ts";
import { bundleCommand } from "../bundle.ts";
import { installBundle } from "../code-cache.ts";
import { copyFromRoot, installTools } from "../copy-from-root.ts";
import { buildFatImage } from "../fat-image.ts";
import { buildGptImage } from "../gpt-image.ts";
import { buildInitramfs } from "../initramfs.ts";
import { netbootModules, readModuleIndex, stickModules } from "../inputs/index.ts";
import { writeStickPciIds } from "../inputs/pci-names.ts";
import { installModules } from "../modules-install.ts";
import { nodeReadAhead } from "../node-read-ahead.ts";
import {
  espEnrollmentFiles,
  payloadEnrollmentFiles,
  type StickSigning,
} from "../secure-boot/enrollment.ts";
import { requireReleaseSignedBy } from "../secure-boot/keys.ts";
import { signedBootFiles } from "../secure-boot/uki.ts";
import { requireUnpackedInputs, type UnpackedInputs } from "../unpacked.ts";
import { appendVerityTree } from "../verity-image.ts";
import {
  STICK_RELEASE_MOUNT,
  STICK_ROOT_IMAGE,
  type StickInitrdInit,
  stickInitrdInit,
} from "./initrd-init.ts";
import { INITRD_UDHCPC_SCRIPT, type StickMedium } from "./medium-sh.ts";
import { STICK_BUNDLE, STICK_START, stickCommand, stickRootInit } from "./root-init.ts";

/** The stick's fixed GUIDs: every stick carries the same, so the init finds its payload. */
export const STICK_GUIDS = {
  table: "4C494B45-4E53-5449-434B-000000000000",
  esp: "4C494B45-4E53-5449-434B-000000000001",
  payload: "4C494B45-4E53-5449-434B-000000000002",
} as const;

/**
 * What the initramfs loads first, side by side: the USB host controllers a stick (or a BMC's
 * virtual media) sits behind, so that the drive enumerates while the storage drivers load.
 */
export const STICK_USB_HOST_MODULES = ["xhci_pci", "ehci_pci", "ohci_pci", "uhci_hcd"];

/** The USB storage drivers, with SCSI disks: the drive's disk once it enumerated. */
export const STICK_USB_STORAGE_MODULES = ["usb_storage", "uas", "sd_mod"];

/** What mounts the payload and the roots: FAT and its codepages, loop, dm-verity, squashfs, erofs. */
export const STICK_FS_MODULES = [
  "vfat",
  "nls_cp437",
  "nls_iso8859_1",
  "nls_ascii",
  "loop",
  "dm_mod",
  "dm_verity",
  "squashfs",
  "erofs",
  "efivarfs",
];

/**
 * What it loads beside the search: the disk controllers the raw image, written to a disk,
 * sits behind.
 */
export const STICK_DISK_MODULES = ["virtio_pci", "virtio_blk", "virtio_scsi", "nvme", "ahci"];

/** A CD drive (AHCI, USB, a BMC's virtual media) and the ISO's filesystem: the ISO's only. */
export const STICK_CD_MODULES = ["sr_mod", "isofs"];

/** The initramfs's modules for `medium`, in the groups its /init loads them in. */
export function stickInitrdModules(medium: StickMedium): StickInitrdInit["modules"] {
  return {
    hosts: STICK_USB_HOST_MODULES,
    storage: STICK_USB_STORAGE_MODULES,
    fs: STICK_FS_MODULES,
    beside:
      medium.kind === "stick" ? STICK_DISK_MODULES : [...STICK_DISK_MODULES, ...STICK_CD_MODULES],
  };
}

// The ESP is only read; the payload takes the hardware reports the menu saves (tens of KB
// each: a hundred fit) and the unattended install's record.
const ESP_ROOM = MIB;
const PAYLOAD_ROOM = 2 * MIB;
// FAT16 needs 4085 clusters (mkfs.vfat makes 2 KiB ones at this size); FAT32 with
// 512-byte clusters, 65525.
const FAT16_MIN = 9 * MIB;
const FAT32_MIN = 40 * MIB;

/** The payload files the initramfs checks before anything reads them; the installer checks the release's other files against release.toml. */
const CHECKED_AT_BOOT = [
  inPayload(STICK_PAYLOAD.manifest),
  `${inPayload(STICK_PAYLOAD.release)}/release.toml`,
  `${inPayload(STICK_PAYLOAD.release)}/boot-modules.json`,
];

/** The ISO 9660 volume label the ISO's initramfs finds its payload by. */
export const ISO_VOLUME_LABEL = "LIKEN_STICK";

// "Microsoft basic data": any operating system mounts it, so reports can be carried away.
const PAYLOAD_TYPE = "EBD0A0A2-B9E5-4433-87C0-68B6B72699C7";

/** The installer's tools, by their path in the unpacked packages. */
const TOOLS = [
  "sbin/wipefs",
  // Not the installer's (it reads sysfs): the shell's, and what the QEMU tests hold the
  // disk listing to (hardware/disks/block-devices.ts).
  "bin/lsblk",
  "sbin/blkid",
  "sbin/blkdiscard",
  "usr/bin/partx",
  "sbin/sfdisk",
  "sbin/mkfs.fat",
  "sbin/mkfs.vfat",
  "sbin/mke2fs",
  "sbin/mkfs.ext4",
  "sbin/debugfs",
  "usr/bin/mkfs.erofs",
  "usr/bin/mtools",
  "usr/bin/mcopy",
  "usr/bin/mmd",
  "usr/bin/mtype",
  "usr/bin/mdir",
  // The hardware report, where the kernel has no /sys/class/dmi/id: the serial number, UUID,
  // baseboard and firmware details (systeminformation runs dmidecode, found on PATH).
  "usr/sbin/dmidecode",
  // The hardware report's LLDP: raw frames on a NIC (tools/socat.ts).
  "usr/bin/socat",
  // [encryption] tpm = true: LUKS2 on the state partition and the storage roles, each
  // formatted through a loop device over its partition (tools/cryptsetup.ts, tools/losetup.ts)
  "sbin/cryptsetup",
  "sbin/losetup",
  // iproute2's ip: the declared network's bonds, VLANs and addresses for the unattended
  // report (hardware/network/); the release's root holds the same bytes, which the stick links
  "bin/ip",
];

export interface StickOptions {
  readonly manifest: string;
  readonly releaseDir: string;
  readonly out: string;
  /** Extra kernel command-line words, e.g. `liken.install=leader-1` for unattended installs. */
  readonly append?: readonly string[];
  /**
   * Signed for Secure Boot, with the keys the stick enrolls in setup mode: its Linux from the
   * payload (enroll = "force"; not over the network), or systemd-boot from its menu ("manual").
   */
  readonly sign?: StickSigning;
  readonly epoch: number;
  readonly workDir: string;
  /** What the build is doing, for a person waiting on it. */
  readonly progress?: Progress;
}

/** The steps every medium shares (buildStickParts), before its own. */
export const STICK_PARTS_STEPS = 5;

/**
 * Builds the stick: a raw GPT image (and its .bmap) or, when `out` ends in .iso, a hybrid
 * ISO that boots as a CD and, written with dd, as a USB disk.
 */
export async function buildStick(o: StickOptions): Promise<void> {
  if (o.out.endsWith(".iso")) return buildIso(o);
  const step = numberedSteps(o.progress ?? NO_PROGRESS, STICK_PARTS_STEPS + 3);
  const { inputs, payload, initrd } = await buildStickParts(
    o,
    { kind: "stick", payloadPartUuid: STICK_GUIDS.payload.toLowerCase() },
    step,
  );
  step("building the ESP (FAT16): systemd-boot, the kernel and the initramfs");
  const espImage = await buildEspImage(inputs, o, initrd);
  step("building the payload partition (FAT32): the manifest, the release, the stick's root");
  const payloadImage = join(o.workDir, "payload.img");
  await buildFatImage(payloadImage, {
    size: await fatSize(payload, PAYLOAD_ROOM, FAT32_MIN),
    label: "LIKEN-DATA",
    volumeId: "4c4b0002",
    tree: payload,
    epoch: o.epoch,
  });
  step(`writing ${o.out} and its .bmap`);
  await mkdir(dirname(o.out), { recursive: true });
  await buildGptImage(o.out, STICK_GUIDS.table, [
    {
      name: "liken-stick-esp",
      typeGuid: PARTITION_TYPES.esp,
      uuid: STICK_GUIDS.esp,
      image: espImage,
    },
    {
      name: "liken-stick-payload",
      typeGuid: PAYLOAD_TYPE,
      uuid: STICK_GUIDS.payload,
      image: payloadImage,
    },
  ]);
  await createBmap(o.out, `${o.out}.bmap`);
}

// The ISO: the payload is its ISO 9660 filesystem, the ESP an appended partition that is
// both the El Torito EFI boot image (a CD) and a GPT partition (the same file on a disk).
async function buildIso(o: StickOptions): Promise<void> {
  requireNoWipe(o.append, "an ISO");
  const step = numberedSteps(o.progress ?? NO_PROGRESS, STICK_PARTS_STEPS + 2);
  const { inputs, payload, initrd } = await buildStickParts(
    o,
    { kind: "iso", volumeLabel: ISO_VOLUME_LABEL },
    step,
  );
  step("building the ESP (FAT16): systemd-boot, the kernel and the initramfs");
  const espImage = await buildEspImage(inputs, o, initrd);
  step(`writing the ISO ${o.out} (xorriso)`);
  await mkdir(dirname(o.out), { recursive: true });
  await makeHybridIso({
    out: o.out,
    tree: payload,
    esp: espImage,
    volumeLabel: ISO_VOLUME_LABEL,
    epoch: o.epoch,
  });
}

/**
 * A medium the stick cannot write (an ISO, the network) cannot record what it installed,
 * so `liken.wipe=1` would wipe and install again at every boot from it.
 */
export function requireNoWipe(append: readonly string[] | undefined, medium: string): void {
  if (!append?.includes("liken.wipe=1")) return;
  throw new LikenError({
    kind: "refused",
    what: `liken.wipe=1 on ${medium}: it cannot record what it installed, so it would wipe and install again at every boot from it`,
    hint: "leave liken.wipe=1 out (an unattended install claims blank disks only and leaves a disk that holds this machine as it is), or wipe from the menu",
  });
}

export interface StickParts {
  readonly inputs: UnpackedInputs;
  /** The payload folder: the manifest, the release, SHA256SUMS and the stick's root image. */
  readonly payload: string;
  /** The stick's initramfs, which finds the payload on `medium`. */
  readonly initrd: string;
}

/**
 * What every medium carries: the payload and the initramfs that finds it there, in
 * STICK_PARTS_STEPS steps, each announced through `step`.
 */
export async function buildStickParts(
  o: StickOptions,
  medium: StickMedium,
  step: (what: string) => void,
): Promise<StickParts> {
  const release = await requireRelease(o.releaseDir);
  if (o.sign) await requireReleaseSignedBy(release, o.sign.keys);
  step(`the pinned inputs: Debian packages and Node.js for ${release.arch}`);
  const inputs = await requireUnpackedInputs(o.progress, release.arch);
  const enrolls = medium.kind !== "net" && o.sign?.enroll === "force";
  const { payload, verity, releaseVerity } = await buildPayload(inputs, o, enrolls, step);
  step(
    medium.kind === "net"
      ? "building the initramfs: the drivers that find the network, every payload file's hash"
      : "building the initramfs: the drivers that find the stick, the payload's hashes",
  );
  const initrd = await buildStickInitrd(inputs, o, payload, verity, releaseVerity, medium);
  return { inputs, payload, initrd };
}

// The ESP as a FAT16 image, as on Debian's install media: a FAT32 filesystem is at least
// 32 MiB, twice what the stick's ESP holds, and UEFI reads FAT16 from removable media.
async function buildEspImage(inputs: UnpackedInputs, o: StickOptions, initrd: string) {
  const esp = await buildStickEsp(inputs, o, initrd);
  const espImage = join(o.workDir, "esp.img");
  await buildFatImage(espImage, {
    size: await fatSize(esp, ESP_ROOM, FAT16_MIN),
    label: "LIKEN-STICK",
    volumeId: "4c4b0001",
    tree: esp,
    epoch: o.epoch,
    fat16: true,
  });
  return espImage;
}

// The payload: the manifest, the release, SHA256SUMS of both, and the stick's root image
// with its dm-verity hash tree.
async function buildPayload(
  inputs: UnpackedInputs,
  o: StickOptions,
  enrolls: boolean,
  step: (what: string) => void,
): Promise<{ payload: string; verity: Verity; releaseVerity: Verity }> {
  const payload = join(o.workDir, "payload");
  const manifest = inPayload(STICK_PAYLOAD.manifest);
  const releaseDir = inPayload(STICK_PAYLOAD.release);
  await rm(payload, { recursive: true, force: true });
  await mkdir(join(payload, releaseDir), { recursive: true });
  await mkdir(join(payload, inPayload(STICK_PAYLOAD.reports)), { recursive: true });
  await copyFile(o.manifest, join(payload, manifest));
  for (const name of (await readdir(o.releaseDir)).sort()) {
    await copyFile(join(o.releaseDir, name), join(payload, releaseDir, name));
  }
  const released = (await readdir(join(payload, releaseDir)))
    .sort()
    .map((n) => `${releaseDir}/${n}`);
  await writeFile(join(payload, "SHA256SUMS"), await checksums(payload, [manifest, ...released]));
  if (enrolls && o.sign) {
    const keysDir = join(payload, inPayload(STICK_PAYLOAD.secureBoot));
    await mkdir(keysDir, { recursive: true });
    for (const [name, bytes] of payloadEnrollmentFiles(o.sign, new Date(o.epoch * 1000)))
      await writeFile(join(keysDir, name), bytes);
  }

  const release = await requireRelease(o.releaseDir);
  const rootTree = join(o.workDir, "root-tree");
  await rm(rootTree, { recursive: true, force: true });
  step(
    "building the stick's root: Node.js, liken-stick and its code cache, the tools, every driver",
  );
  await buildStickRoot(inputs, rootTree, o.workDir);
  step("linking the files the release's root holds too (read from its rootfs.img)");
  await linkReleaseFiles(rootTree, o.releaseDir, o.workDir);
  const rootImage = join(payload, STICK_ROOT_IMAGE);
  step("compressing the stick's root (squashfs, zstd), with its dm-verity hash tree");
  await makeSquashfs(rootImage, rootTree, { epoch: o.epoch });
  return { payload, verity: await appendVerityTree(rootImage), releaseVerity: release.verity };
}

// Every file of the stick's root that the release's root holds byte for byte at the same
// path becomes a link into the release's root, which the stick mounts on /release: Node.js,
// the NIC drivers, busybox and the libraries are on the stick once (a release built with
// other ones keeps the stick's own copies).
async function linkReleaseFiles(tree: string, releaseDir: string, workDir: string) {
  const release = join(workDir, "release-root");
  await rm(release, { recursive: true, force: true });
  await extractErofs(join(releaseDir, "rootfs.img"), release);
  try {
    for (const path of await regularFiles(tree)) {
      const ours = join(tree, path);
      const theirs = join(release, path);
      // A file the release does not have stays in the stick's root.
      const info = await lstat(theirs).catch(() => undefined);
      if (!info?.isFile() || info.size !== (await lstat(ours)).size) continue;
      if (!(await readFile(theirs)).equals(await readFile(ours))) continue;
      await rm(ours);
      await symlink(`${STICK_RELEASE_MOUNT}/${path}`, ours);
    }
  } finally {
    await rm(release, { recursive: true, force: true });
  }
}

/** The regular files under `dir`, as paths relative to it, in name order. */
async function regularFiles(dir: string, prefix = ""): Promise<string[]> {
  const out: string[] = [];
  const entries = await readdir(join(dir, prefix), { withFileTypes: true });
  for (const e of entries.sort((a, b) => a.name.localeCompare(b.name))) {
    const path = prefix ? `${prefix}/${e.name}` : e.name;
    if (e.isDirectory()) out.push(...(await regularFiles(dir, path)));
    else if (e.isFile()) out.push(path);
  }
  return out;
}

// The initramfs: what finds the stick, and the hashes that check its payload.
async function buildStickInitrd(
  inputs: UnpackedInputs,
  o: StickOptions,
  payload: string,
  verity: Verity,
  releaseVerity: Verity,
  medium: StickMedium,
): Promise<string> {
  const tree = join(o.workDir, "initrd-tree");
  await rm(tree, { recursive: true, force: true });
  await mkdir(join(tree, "bin"), { recursive: true });
  await mkdir(join(tree, "etc/liken"), { recursive: true });
  await copyFile(inputs.busybox, join(tree, "bin/busybox"));
  await installTools(inputs, tree, ["sbin/blkid", "sbin/dmsetup", "sbin/losetup"]);
  const groups = stickInitrdModules(medium);
  const modules = Object.values(groups).flat();
  if (medium.kind === "net") {
    // Every wired NIC driver: which one the machine needs is known only once it runs.
    modules.push(...netbootModules(await readModuleIndex(inputs.root)));
    await writeFile(join(tree, INITRD_UDHCPC_SCRIPT.slice(1)), UDHCPC_SCRIPT_TEXT, {
      mode: 0o755,
    });
  }
  await installModules(inputs, tree, modules);
  // Fetched over the network, every file is checked before it is used; on a stick or an
  // ISO, the files read before the roots are mapped (dm-verity checks the roots' blocks).
  // The keys a signed stick enrolls too: what it writes into the firmware must be its own.
  const checked =
    medium.kind === "net"
      ? await regularFiles(payload)
      : [
          ...CHECKED_AT_BOOT,
          ...(await regularFiles(payload)).filter((f) =>
            f.startsWith(`${inPayload(STICK_PAYLOAD.secureBoot)}/`),
          ),
        ];
  await writeFile(join(tree, "etc/liken/payload.sha256"), await checksums(payload, checked));
  await writeFile(
    join(tree, "init"),
    stickInitrdInit({
      medium,
      modules: groups,
      root: { path: STICK_ROOT_IMAGE, ...verity, fstype: "squashfs" },
      releaseRoot: { path: "release/rootfs.img", ...releaseVerity, fstype: "erofs" },
      checksumsFile: "/etc/liken/payload.sha256",
      // The stick's Node.js, which is the release's whenever they are the same bytes.
      nodeReadAhead: await nodeReadAhead(inputs.node),
    }),
    { mode: 0o755 },
  );
  const initrd = join(o.workDir, "initrd.img");
  await buildInitramfs(tree, initrd, o.epoch, join(o.workDir, "initrd.cpio"));
  return initrd;
}

// The ESP's tree: systemd-boot and its one entry: the kernel and the initramfs, or, signed,
// one unified kernel image holding both and the command line, and with enroll = "manual"
// the keys systemd-boot enrolls from its menu.
async function buildStickEsp(
  inputs: UnpackedInputs,
  o: StickOptions,
  initrd: string,
): Promise<string> {
  const esp = join(o.workDir, "esp");
  await rm(esp, { recursive: true, force: true });
  await mkdir(join(esp, "EFI/BOOT"), { recursive: true });
  await mkdir(join(esp, "loader/entries"), { recursive: true });
  await mkdir(join(esp, "liken"), { recursive: true });
  const cmdline = stickCmdline(inputs.arch, o.append);
  const entry = ["title liken install stick"];
  if (o.sign) {
    const db = o.sign.keys.signers.db;
    const { loader, uki } = await signedBootFiles(
      inputs,
      { initrd: await readFile(initrd), cmdline, osRelease: STICK_OS_RELEASE },
      db,
    );
    await writeFile(join(esp, archFacts(inputs.arch).removableLoader), loader);
    await writeFile(join(esp, STICK_UKI), uki);
    entry.push(`efi /${STICK_UKI}`);
    // With "force" the stick's Linux enrolls them, once it read the TPM's event log: a
    // systemd-boot that enrolled them first would decide db without it.
    if (o.sign.enroll === "manual") {
      const keysDir = join(esp, "loader/keys/auto");
      await mkdir(keysDir, { recursive: true });
      for (const [name, bytes] of espEnrollmentFiles(o.sign, new Date(o.epoch * 1000)))
        await writeFile(join(keysDir, name), bytes);
    }
    await writeFile(
      join(esp, "loader/loader.conf"),
      loaderConf(o.sign.enroll === "manual" ? "manual" : undefined),
    );
    // For firmware whose setup screens enroll a certificate from a file, when setup mode
    // cannot be reached: its db takes this, and the stick then boots with its keys kept.
    await writeFile(join(esp, STICK_DB_CERTIFICATE), db.certificate);
  } else {
    await copyFile(inputs.systemdBoot, join(esp, archFacts(inputs.arch).removableLoader));
    await copyFile(inputs.vmlinuz, join(esp, "liken/vmlinuz"));
    await copyFile(initrd, join(esp, "liken/initrd.img"));
    entry.push("linux /liken/vmlinuz", "initrd /liken/initrd.img", `options ${cmdline}`);
    await writeFile(join(esp, "loader/loader.conf"), loaderConf());
  }
  await writeFile(join(esp, "loader/entries/liken-stick.conf"), [...entry, ""].join("\n"));
  return esp;
}

/** The stick's kernel command line: its consoles, and `append` (liken.install=NAME, ...). */
export function stickCmdline(arch: Arch, append: readonly string[] = []): string {
  return [...consoleOptions(arch), "panic=30", ...append].join(" ");
}

/** The signed stick's unified kernel image on its ESP. */
export const STICK_UKI = "liken/stick.efi";

/** The cluster's db certificate (DER) on the signed stick's ESP. */
export const STICK_DB_CERTIFICATE = "liken/db.cer";

const STICK_OS_RELEASE = 'ID=liken\nNAME=liken\nPRETTY_NAME="liken install stick"\n';

// The stick's root: what the menu, the installer and the report run on. Read-only: its
// init puts busybox's applets in /run/bin and mounts /tmp and /root.
async function buildStickRoot(
  inputs: UnpackedInputs,
  tree: string,
  workDir: string,
): Promise<void> {
  for (const dir of ["bin", "sbin", "dev", "proc", "sys", "run", "tmp", "root"])
    await mkdir(join(tree, dir), { recursive: true });
  await mkdir(join(tree, PAYLOAD_MOUNT.slice(1)), { recursive: true });
  await mkdir(join(tree, STICK_RELEASE_MOUNT.slice(1)), { recursive: true });
  await copyFile(inputs.busybox, join(tree, "bin/busybox"));
  // The kernel's module helper (/proc/sys/kernel/modprobe, set by the initramfs) and the
  // shell of scripts' #! lines.
  for (const applet of ["modprobe", "sh"]) await symlink("busybox", join(tree, "bin", applet));
  await writeFile(join(tree, "init"), stickRootInit(), { mode: 0o755 });

  // The app: Node.js and the bundle, started by a one-line wrapper.
  const { node } = inputs;
  await mkdir(join(tree, "usr/bin"), { recursive: true });
  await mkdir(join(tree, "usr/lib/liken-stick"), { recursive: true });
  await copyFile(node, join(tree, "usr/bin/node"));
  await installBundle({
    tree,
    node,
    bundle: await bundleCommand(),
    at: STICK_BUNDLE,
    start: STICK_START,
    workDir,
    target: { arch: inputs.arch, sysroot: inputs.root },
  });
  // The report's PCI names, trimmed to what the stick's drivers bind, beside the bundle.
  await writeStickPciIds(inputs.root, join(tree, dirname(STICK_BUNDLE).slice(1), STICK_PCI_IDS));
  await writeFile(join(tree, "usr/bin/liken-stick"), stickCommand(), { mode: 0o755 });

  // The tools and every library they and Node.js load, symlinks kept as they are.
  await installTools(inputs, tree, TOOLS, [node]);
  // mtools converts FAT long names through glibc's iconv: the codepages it asks for.
  for (const f of [
    "IBM850.so",
    "IBM437.so",
    "gconv-modules",
    "gconv-modules.cache",
    "gconv-modules.d/gconv-modules-extra.conf",
  ]) {
    await copyFromRoot(
      inputs.root,
      join(inputs.root, "usr/lib", archFacts(inputs.arch).multiarch, "gconv", f),
      tree,
    );
  }
  // Terminal descriptions for the menu: the screen (linux) and serial terminals.
  await cp(join(inputs.root, "lib/terminfo"), join(tree, "lib/terminfo"), {
    recursive: true,
    verbatimSymlinks: true,
  });
  await mkdir(join(tree, "etc"), { recursive: true });
  await writeFile(join(tree, "etc/passwd"), "root:x:0:0:root:/root:/bin/sh\n");
  await writeFile(join(tree, "etc/group"), "root:x:0:\n");
  await symlink("/proc/self/mounts", join(tree, "etc/mtab"));
  // The root is read-only: the declared network's nameservers are written under /run.
  await symlink(RESOLV_CONF, join(tree, "etc/resolv.conf"));
  // busybox's udhcpc configures a lease through this script (liken.report=URL, and the
  // declared network's DHCP interfaces).
  await mkdir(join(tree, dirname(UDHCPC_SCRIPT).slice(1)), { recursive: true });
  await writeFile(join(tree, UDHCPC_SCRIPT.slice(1)), UDHCPC_SCRIPT_TEXT, { mode: 0o755 });

  await installModules(inputs, tree, stickModules(await readModuleIndex(inputs.root)));
}

// busybox `sha256sum -c` format: "<hash>  <path>".
async function checksums(dir: string, files: readonly string[]): Promise<string> {
  const lines: string[] = [];
  for (const f of files)
    lines.push(
      `${createHash("sha256")
        .update(await readFile(join(dir, f)))
        .digest("hex")}  ${f}`,
    );
  return `${lines.join("\n")}\n`;
}

// What the folder holds plus room, in whole MiB, at least `floor`. The filesystem's own
// share: two FATs of 4 bytes a cluster (1/64 of the data with 512-byte clusters), the
// reserved sectors and every file's last cluster, under 3 % together.
async function fatSize(dir: string, room: number, floor: number): Promise<number> {
  const bytes = await folderBytes(dir);
  return Math.max(floor, Math.ceil((bytes * 1.03 + room) / MIB) * MIB);
}

/** The bytes of every file under `dir`. */
export async function folderBytes(dir: string): Promise<number> {
  let total = 0;
  for (const e of await readdir(dir, { withFileTypes: true })) {
    const p = join(dir, e.name);
    total += e.isDirectory() ? await folderBytes(p) : (await lstat(p)).size;
  }
  return total;
}
