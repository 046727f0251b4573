// The /init of the stick's initramfs: mounts what it needs, loads the drivers the hardware
// asks for (by modalias), finds its payload partition by PARTUUID, checks the payload's
// checksums, then runs the unattended install that `liken.install=NAME` names, or the menu
// on the screen and on the serial console. PID 1 never exits: a kernel whose init ends
// panics.

export interface StickInitOptions {
  /** The payload partition's PARTUUID (fixed per image). */
  readonly payloadPartUuid: string;
}

export function stickInit(o: StickInitOptions): string {
  return `#!/bin/busybox sh
/bin/busybox --install -s /bin
export PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root LANG=C.UTF-8 TMPDIR=/tmp
mkdir -p /proc /sys /dev /run /tmp /payload /root
mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev
mount -t tmpfs -o mode=0755 tmpfs /run
mount -t tmpfs tmpfs /tmp
# The kernel loads modules it needs itself (crc32c for ext4) through this helper.
echo /bin/modprobe > /proc/sys/kernel/modprobe
echo 1 > /proc/sys/kernel/printk 2>/dev/null

say() {
  for c in /dev/tty0 /dev/ttyS0; do [ -c "$c" ] && echo "$*" > "$c" 2>/dev/null; done
}

hold() {
  say "liken-stick: $*"
  say "liken-stick: the console holds here; a shell follows"
  for c in /dev/tty1 /dev/ttyS0; do [ -c "$c" ] && (setsid sh -c "exec sh <$c >$c 2>&1" &); done
  while :; do sleep 3600; done
}

INSTALL= THEN=poweroff WIPE= DISKS= SHELL_ONLY=
for word in $(cat /proc/cmdline); do
  case "$word" in
    liken.install=*) INSTALL="\${word#liken.install=}" ;;
    liken.disks=*) DISKS=$(echo "\${word#liken.disks=}" | tr , ' ') ;;
    liken.shell=1) SHELL_ONLY=1 ;;
    liken.then=*) THEN="\${word#liken.then=}" ;;
    liken.wipe=1) WIPE=--wipe ;;
  esac
done

say "liken-stick: loading drivers"
modprobe -qa efivarfs 2>/dev/null
mount -t efivarfs efivarfs /sys/firmware/efi/efivars 2>/dev/null
# Bus drivers bring new devices, whose modalias asks for more drivers: rounds until the
# payload is there and a round's drivers brought no new device. Stopping at the payload
# alone would race: a USB stick can show up before virtio_pci's devices ask for
# virtio_blk, and the machine's own disk would then be missing from the menu.
PAYLOAD= SEEN=
for round in $(seq 1 60); do
  ALIASES=$(find /sys/devices -name modalias -exec cat {} + 2>/dev/null | sort -u)
  [ -n "$PAYLOAD" ] && [ "$ALIASES" = "$SEEN" ] && break
  SEEN=$ALIASES
  echo "$ALIASES" | xargs modprobe -qa 2>/dev/null
  modprobe -qa sd_mod usb_storage uas vfat nls_cp437 nls_iso8859_1 nls_ascii ext4 2>/dev/null
  [ -n "$PAYLOAD" ] || PAYLOAD=$(blkid --match-token PARTUUID=${o.payloadPartUuid} --output device 2>/dev/null | head -n 1)
  sleep 0.3
done
[ -n "$PAYLOAD" ] || hold "the stick's payload partition (PARTUUID ${o.payloadPartUuid}) did not appear"
mount -t vfat -o rw,noatime "$PAYLOAD" /payload || hold "cannot mount the payload partition $PAYLOAD"
(cd /payload && sha256sum -c -s SHA256SUMS) || hold "the payload's checksums do not match: write the stick again"
say "liken-stick: payload $PAYLOAD verified"

if [ -n "$INSTALL" ]; then
  say "liken-stick: unattended install as $INSTALL"
  if liken-stick install --manifest /payload/cluster.toml --as "$INSTALL" --release /payload/release \\
      --status-file /run/liken/install-status.json $WIPE $DISKS > /dev/ttyS0 2>&1; then
    say "liken-stick: installed as $INSTALL"
    umount /payload; sync
    if [ "$THEN" = reboot ]; then reboot -f; else poweroff -f; fi
  fi
  hold "the install as $INSTALL failed; its error is above"
fi

[ -n "$SHELL_ONLY" ] && hold "liken.shell=1: no menu"

# The menu on the screen and on the first serial port, each started again if it ends.
for c in tty1 ttyS0; do
  [ -c /dev/$c ] || continue
  term=linux; [ $c = ttyS0 ] && term=vt220
  (while :; do TERM=$term setsid -c liken-stick menu </dev/$c >/dev/$c 2>&1; sleep 1; done) &
done
while :; do sleep 3600; done
`;
}
