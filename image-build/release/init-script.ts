// The /init of a release's initramfs. It brings the machine up far enough for the boot
// agent (agent/main.ts, run by Node.js): the kernel's filesystems, the drivers the hardware
// asks for (until the state partition's disk shows), efivarfs, efi-pstore and the watchdog.
// It then runs the agent and acts on how it ended: done, hold the console, or (during a
// trial, or when the agent itself failed in one) reset, so a trial never hangs.

/** i6300esb's two stages each last the heartbeat: a hung trial resets after about 2 x 15 s. */
export const WATCHDOG_HEARTBEAT_S = 15;

export function releaseInit(storageModules: readonly string[]): string {
  const storage = storageModules.join(" ");
  return `#!/bin/busybox sh
/bin/busybox --install -s /bin
export PATH=/bin:/usr/bin
mkdir -p /proc /sys /dev /run /state /tmp
mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev
mount -t tmpfs -o mode=0755 tmpfs /run
mkdir -p /run/liken
# The kernel loads modules it needs itself (crc32c for ext4) through this helper.
echo /bin/modprobe > /proc/sys/kernel/modprobe

say() {
  for c in /dev/tty0 /dev/ttyS0; do [ -c "$c" ] && echo "$*" > "$c" 2>/dev/null; done
}

hold() {
  say "liken: the boot holds here; power the machine off"
  while :; do sleep 3600; done
}

reset_after() {
  say "liken: resetting in $1 s"
  sleep "$1"
  sync
  reboot -f
  hold
}

modprobe -qa efivarfs efi_pstore ext4 erofs vfat nls_cp437 nls_ascii nls_utf8 2>/dev/null
modprobe -q i6300esb heartbeat=${WATCHDOG_HEARTBEAT_S} 2>/dev/null
mount -t efivarfs efivarfs /sys/firmware/efi/efivars 2>/dev/null

# The storage drivers the release has, loaded at once: far faster under emulation than
# reading every modalias, and enough for the disks the boot path supports.
modprobe -qa ${storage} 2>/dev/null
found=
for wait in $(seq 1 25); do
  grep -qsx PARTNAME=liken-state /sys/class/block/*/uevent && found=1 && break
  sleep 0.2
done
# Otherwise drivers for the hardware present, by modalias, in rounds: a bus driver
# (virtio_pci, ahci) brings new devices whose modalias asks for the next driver.
for round in $(seq 1 50); do
  [ -n "$found" ] && break
  find /sys/devices -name modalias -exec cat {} + 2>/dev/null | sort -u | xargs modprobe -qa 2>/dev/null
  grep -qsx PARTNAME=liken-state /sys/class/block/*/uevent && found=1 && break
  sleep 0.2
done
[ -n "$found" ] || { say "liken: no partition named liken-state: the disk or its driver is missing (run the hardware report from the stick)"; hold; }

node /usr/lib/liken/agent.mjs
rc=$?
case $rc in
  0) while :; do sleep 3600; done ;;
  3) hold ;;
esac
if [ -e /run/liken/trial ]; then
  say "liken: the boot agent ended with code $rc during a trial"
  reset_after 10
fi
say "liken: the boot agent ended with code $rc"
hold
`;
}
