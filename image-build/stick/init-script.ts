// The /init of the stick's initramfs: mounts what it needs, loads the drivers the hardware
// asks for (by modalias), finds its payload partition by PARTUUID, checks the payload's
// checksums (only the files SHA256SUMS lists: the record of installs and the reports the
// stick adds later are not in it), then runs the unattended install that
// `liken.install=NAME` names, or the menu on the screen and on the serial console. PID 1
// never exits: a kernel whose init ends panics.

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

# Every console the kernel writes to (its console= words: "tty0 ttyS0"), so a screen-only
# and a serial-only machine both show what the stick says.
CONSOLES=
for c in $(cat /sys/class/tty/console/active 2>/dev/null); do
  [ -c "/dev/$c" ] && CONSOLES="$CONSOLES /dev/$c"
done
[ -n "$CONSOLES" ] || CONSOLES=/dev/console

say() {
  for c in $CONSOLES; do echo "$*" > "$c" 2>/dev/null; done
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
# Every NIC's link up, with no address: the hardware report reads carrier from a live link.
for n in /sys/class/net/*; do
  [ -e "$n/device" ] && ip link set dev "\${n##*/}" up 2>/dev/null
done

if [ -n "$INSTALL" ]; then
  [ "$THEN" = reboot ] || THEN=poweroff
  say "liken-stick: unattended install as $INSTALL"
  # Once per machine: the verb writes nothing where the stick's record finds its install, and
  # makes the installed disk the next boot. Its output and error go to every console; tee
  # would swallow its exit code, so the code goes through a file.
  mkdir -p /run/liken
  { liken-stick unattended --as "$INSTALL" --then "$THEN" --manifest /payload/cluster.toml \\
      --release /payload/release --status-file /run/liken/install-status.json \\
      --record /payload/installed.json $WIPE $DISKS 2>&1
    echo $? > /run/liken/unattended.rc; } | tee $CONSOLES > /dev/null
  if [ "$(cat /run/liken/unattended.rc)" = 0 ]; then
    umount /payload; sync
    if [ "$THEN" = reboot ]; then reboot -f; else poweroff -f; fi
  fi
  hold "the unattended install as $INSTALL did not finish; its error is above"
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
