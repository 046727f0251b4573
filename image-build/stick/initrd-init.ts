// The /init of the stick's initramfs, which holds only what finds and checks the stick: it
// finds the payload on its medium (medium-sh.ts: the stick's partition, the ISO's
// filesystem, or files fetched over HTTP), checks the manifest and the release's index (on
// the network, every file) against hashes built into this file, maps the stick's root image (the app, the tools, every driver) and the release's
// root (whose Node.js the stick runs) through dm-verity with the root hashes built into
// this file, and switch_roots into the stick's root with the release's on /release.
// Nothing on the payload is trusted that these hashes do not cover: the roots' blocks are
// checked as they are read, and the installer checks the release's files against its
// release.toml before it writes a byte.
import { PAYLOAD_MOUNT } from "../../formats/stick-payload.ts";
import { type ReadAhead, readAheadSh, warmStartSh } from "../node-read-ahead.ts";
import { STICK_SAY_AND_HOLD } from "./console-sh.ts";
import { findPayloadSh, type StickMedium } from "./medium-sh.ts";

export interface StickInitrdInit {
  /** Where the payload is: what this build of the stick boots from. */
  readonly medium: StickMedium;
  /**
   * The modules: the USB host controllers and the USB storage drivers first, side by side;
   * the filesystems and dm-verity, and the rest (the other disk controllers; on an ISO or
   * the network a CD drive and ISO 9660 too), each loaded beside the search.
   */
  readonly modules: {
    readonly hosts: readonly string[];
    readonly storage: readonly string[];
    readonly fs: readonly string[];
    readonly beside: readonly string[];
  };
  /** The root image on the payload, and what dm-verity checks it against. */
  readonly root: VerityImage;
  /** The release's root image on the payload, mounted on /release in the stick's root. */
  readonly releaseRoot: VerityImage;
  /** The parts of Node.js a start reads (node-read-ahead.ts), read ahead of the menu's start. */
  readonly nodeReadAhead: readonly ReadAhead[];
  /** The payload files checked before anything reads them, in `sha256sum -c` form (on the network: every file, fetched in this order). */
  readonly checksumsFile: string;
}

export interface VerityImage {
  /** Its path on the payload partition. */
  readonly path: string;
  readonly rootHash: string;
  readonly dataBlocks: number;
  readonly fstype: "squashfs" | "erofs";
}

/** What the stick booted from (stick, iso or net), for the stick's root: only a stick's payload is written. */
export const MEDIUM_FILE = "/run/liken/medium";

export const STICK_ROOT_DM_NAME = "liken-stick-root";
export const STICK_RELEASE_DM_NAME = "liken-stick-release";

/** Where the stick's root finds the release's root. */
export const STICK_RELEASE_MOUNT = "/release";

/** The root image's name on the payload partition. */
export const STICK_ROOT_IMAGE = "stick-root.img";

export function stickInitrdInit(o: StickInitrdInit): string {
  return `#!/bin/busybox sh
/bin/busybox --install -s /bin
export PATH=/sbin:/bin
mkdir -p /proc /sys /dev /run ${PAYLOAD_MOUNT} /root
mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev
mount -t tmpfs -o mode=0755 tmpfs /run
# The kernel loads modules it needs itself (crc32c for ext4) through this helper; the
# stick's root has it at the same path.
echo /bin/modprobe > /proc/sys/kernel/modprobe
echo 1 > /proc/sys/kernel/printk 2>/dev/null

${STICK_SAY_AND_HOLD}

# The host controllers load beside the storage drivers, so that the drive enumerates while
# they load (a module's load is CPU work, a tenth of a second under emulation, and the other
# CPU is idle here). usb-storage lets a new drive settle for a second before it looks at
# it; the stick's drive has just been read by the firmware, so it is looked at at once (one
# that did not answer yet is looked at again: medium-sh.ts).
modprobe -qa ${o.modules.hosts.join(" ")} 2>/dev/null &
modprobe -q usb_storage delay_use=0 2>/dev/null
modprobe -qa ${o.modules.storage.join(" ")} 2>/dev/null
# The other drivers load while the drive enumerates and the search runs; whatever needs
# them waits for them (and loads again what a load beside it may have raced with).
modprobe -qa ${o.modules.fs.join(" ")} 2>/dev/null &
MODULES_FS=$!
modprobe -qa ${o.modules.beside.join(" ")} 2>/dev/null &
# shellcheck disable=SC2034 # waited for by the ISO's and the network's search, not a stick's
MODULES_BESIDE=$!
fs_modules() {
  wait $MODULES_FS
  modprobe -qa ${o.modules.fs.join(" ")} 2>/dev/null
}
${findPayloadSh(o.medium, o.checksumsFile)}
fs_modules
mount -t efivarfs efivarfs /sys/firmware/efi/efivars 2>/dev/null
mkdir -p /run/liken
echo ${o.medium.kind} > ${MEDIUM_FILE}
${mapVerity("the stick's root", o.root, "/dev/loop0", STICK_ROOT_DM_NAME, "/root")}
${mapVerity("the release's root", o.releaseRoot, "/dev/loop1", STICK_RELEASE_DM_NAME, `/root${STICK_RELEASE_MOUNT}`)}
# What a start of Node.js (the release's) reads of it is read, decompressed and every block
# checked while the boot goes on, rather than page by page when the menu starts; and Node.js
# starts once beside it, from the release's root, reading in a start's own order.
${readAheadSh(`/root${STICK_RELEASE_MOUNT}/usr/bin/node`, o.nodeReadAhead)}
${warmStartSh(`/root${STICK_RELEASE_MOUNT}`)}
say "liken-stick: payload $PAYLOAD verified"
# The other disk controllers are not waited for (an AHCI controller's empty ports take
# 0.4 s under emulation): a driver still loading at switch_root finishes in the kernel, and
# those after it, their files gone with this initramfs, load with the root's drivers.
for m in /dev /proc /sys /run ${PAYLOAD_MOUNT}; do mount -o move "$m" "/root$m"; done
exec switch_root /root /init
`;
}

// Attaches an image on the payload read-only, maps it through dm-verity with its root hash
// and mounts it read-only on `at`, or holds saying which step failed. The loop device reads
// with direct I/O (util-linux's losetup: busybox's, which the shell runs for a bare
// `losetup`, cannot set it): each block goes from the medium straight to dm-verity, not
// through a second copy in the page cache of the payload's filesystem. A medium that cannot
// (an ISO's filesystem, a drive with 4 KiB sectors, the network's payload in memory) reads
// through the page cache as before: the kernel refuses, and the boot goes on.
function mapVerity(what: string, image: VerityImage, loop: string, name: string, at: string) {
  const sectors = image.dataBlocks * 8;
  const blocks = image.dataBlocks;
  return `losetup -r ${loop} ${PAYLOAD_MOUNT}/${image.path} 2>/run/losetup.err ||
  hold "cannot attach ${PAYLOAD_MOUNT}/${image.path}: $(tail -n 1 /run/losetup.err); write the stick again"
/sbin/losetup --direct-io=on ${loop} 2>/dev/null
DM_DISABLE_UDEV=1 dmsetup create ${name} --readonly --noudevsync \\
  --table "0 ${sectors} verity 1 ${loop} ${loop} 4096 4096 ${blocks} ${blocks} sha256 ${image.rootHash} -" 2>/run/dmsetup.err ||
  hold "${what} does not map through dm-verity: $(tail -n 1 /run/dmsetup.err); write the stick again"
mount -t ${image.fstype} -o ro /dev/mapper/${name} ${at} 2>/run/mount.err ||
  hold "${what} does not mount: $(tail -n 1 /run/mount.err); write the stick again"`;
}
