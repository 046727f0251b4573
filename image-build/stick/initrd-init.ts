// The /init of the stick's initramfs, which holds only what finds and checks the stick: it
// loads the USB and disk drivers a stick can sit behind, finds the payload partition by
// PARTUUID, checks the manifest and the release's index against hashes built into this
// file, maps the stick's root image (Node.js, the app, the tools, every driver) through
// dm-verity with the root hash built into this file, and switch_roots into it. Nothing on
// the payload is trusted that these hashes do not cover: the root's blocks are checked as
// they are read, and the installer checks the release's files against its release.toml
// before it writes a byte.
import { CONSOLE_FUNCTIONS } from "./console-sh.ts";

export interface StickInitrdInit {
  /** The payload partition's PARTUUID (fixed per image). */
  readonly payloadPartUuid: string;
  /** The modules loaded at once: USB host controllers, USB storage, disk controllers, FAT, loop, dm-verity, squashfs. */
  readonly modules: readonly string[];
  /** The root image on the payload, and what dm-verity checks it against. */
  readonly rootImage: string;
  readonly rootHash: string;
  readonly dataBlocks: number;
  /** The payload files checked before anything reads them, in `sha256sum -c` form. */
  readonly checksumsFile: string;
}

export const STICK_ROOT_DM_NAME = "liken-stick-root";

/** The root image's name on the payload partition. */
export const STICK_ROOT_IMAGE = "stick-root.img";

export function stickInitrdInit(o: StickInitrdInit): string {
  return `#!/bin/busybox sh
/bin/busybox --install -s /bin
export PATH=/sbin:/bin
mkdir -p /proc /sys /dev /run /payload /root
mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev
mount -t tmpfs -o mode=0755 tmpfs /run
# The kernel loads modules it needs itself (crc32c for ext4) through this helper; the
# stick's root has it at the same path.
echo /bin/modprobe > /proc/sys/kernel/modprobe
echo 1 > /proc/sys/kernel/printk 2>/dev/null

${CONSOLE_FUNCTIONS}

say "liken-stick: finding the stick"
modprobe -qa ${o.modules.join(" ")} 2>/dev/null
modprobe -q efivarfs 2>/dev/null
mount -t efivarfs efivarfs /sys/firmware/efi/efivars 2>/dev/null
# USB enumerates on its own time after its drivers load: wait for the partition, 60 s at most.
PAYLOAD=
for i in $(seq 1 300); do
  PAYLOAD=$(blkid -c /dev/null -l -o device -t PARTUUID=${o.payloadPartUuid} 2>/dev/null)
  [ -n "$PAYLOAD" ] && break
  sleep 0.2
done
[ -n "$PAYLOAD" ] || hold "the stick's payload partition (PARTUUID ${o.payloadPartUuid}) did not appear: write the stick again, or try another USB port"
mount -t vfat -o rw,noatime "$PAYLOAD" /payload || hold "cannot mount the payload partition $PAYLOAD: write the stick again"
(cd /payload && sha256sum -c -s ${o.checksumsFile}) || hold "the payload's checksums do not match: write the stick again"
losetup -r /dev/loop0 /payload/${o.rootImage} 2>/run/losetup.err ||
  hold "cannot attach /payload/${o.rootImage}: $(tail -n 1 /run/losetup.err); write the stick again"
DM_DISABLE_UDEV=1 dmsetup create ${STICK_ROOT_DM_NAME} --readonly --noudevsync \\
  --table "0 ${o.dataBlocks * 8} verity 1 /dev/loop0 /dev/loop0 4096 4096 ${o.dataBlocks} ${o.dataBlocks} sha256 ${o.rootHash} -" 2>/run/dmsetup.err ||
  hold "the stick's root does not map through dm-verity: $(tail -n 1 /run/dmsetup.err); write the stick again"
mount -t squashfs -o ro /dev/mapper/${STICK_ROOT_DM_NAME} /root 2>/run/mount.err ||
  hold "the stick's root does not mount: $(tail -n 1 /run/mount.err); write the stick again"
say "liken-stick: payload $PAYLOAD verified"
for m in /dev /proc /sys /run /payload; do mount -o move "$m" "/root$m"; done
exec switch_root /root /init
`;
}
