// The /init of a release's initramfs: the installed machine's boot agent, minimal until the
// boot-path issue replaces it. It loads the drivers the machine's hardware asks for, mounts
// the state partition, writes the status document, and prints the contract line
// `liken <version> slot <a|b> up` on every console.

export interface ReleaseInitOptions {
  readonly version: string;
  /** Test knobs: health fails the release's own check, panic crashes the kernel, hang stops answering. */
  readonly fault?: "health" | "panic" | "hang";
}

export function releaseInit(o: ReleaseInitOptions): string {
  return `#!/bin/busybox sh
# liken ${o.version}: boot agent (minimal)
/bin/busybox --install -s /bin
export PATH=/bin
mkdir -p /proc /sys /dev /run /state
mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev
mount -t tmpfs -o mode=0755 tmpfs /run
# The kernel loads modules it needs itself (crc32c for ext4) through this helper.
echo /bin/modprobe > /proc/sys/kernel/modprobe

VERSION=${o.version}
FAULT=${o.fault ?? ""}

say() {
  # every console the command line names, not just the last one /dev/console reaches
  for c in /dev/tty0 /dev/ttyS0; do [ -c "$c" ] && echo "$*" > "$c" 2>/dev/null; done
}

hold() {
  say "liken: $*"
  say "liken: the boot holds here; power the machine off"
  while :; do sleep 3600; done
}

SLOT=
for word in $(cat /proc/cmdline); do
  case "$word" in liken.slot=*) SLOT="\${word#liken.slot=}" ;; esac
done
[ -n "$SLOT" ] || hold "no liken.slot= on the kernel command line"

modprobe -qa efivarfs efi_pstore ext4 erofs 2>/dev/null
mount -t efivarfs efivarfs /sys/firmware/efi/efivars 2>/dev/null

[ "$FAULT" = panic ] && echo c > /proc/sysrq-trigger
[ "$FAULT" = hang ] && while :; do :; done

# Drivers for the hardware present, by modalias, in rounds: a bus driver (virtio_pci, ahci)
# brings new devices whose modalias asks for the next driver (virtio_blk, sd_mod).
STATE=
for round in $(seq 1 50); do
  find /sys/devices -name modalias -exec cat {} + 2>/dev/null | sort -u | xargs modprobe -qa 2>/dev/null
  for u in /sys/class/block/*/uevent; do
    [ -f "$u" ] && grep -qx PARTNAME=liken-state "$u" && STATE=$(sed -n 's/^DEVNAME=//p' "$u")
  done
  [ -n "$STATE" ] && break
  sleep 0.2
done
[ -n "$STATE" ] || hold "no partition named liken-state"
mount -t ext4 "/dev/$STATE" /state || hold "cannot mount the state partition /dev/$STATE"

PHASE=Running
[ "$FAULT" = health ] && PHASE=Failed
NOW=$(date -u +%Y-%m-%dT%H:%M:%SZ)
BOOT_ID=$(cat /proc/sys/kernel/random/boot_id)
mkdir -p /state/status /run/liken
cat > /run/liken/status.json <<STATUS
{
  "apiVersion": "liken.dev/v1",
  "kind": "MachineStatus",
  "phase": "$PHASE",
  "version": "$VERSION",
  "slot": "$SLOT",
  "conditions": [],
  "boot": { "slot": "$SLOT", "trial": false, "systemRejection": null },
  "lastCrash": null,
  "updatedAt": "$NOW",
  "bootID": "$BOOT_ID"
}
STATUS
chmod 0640 /run/liken/status.json
cp /run/liken/status.json /state/status/status.json.tmp && sync && mv /state/status/status.json.tmp /state/status/status.json && sync
umount /state

say "liken $VERSION slot $SLOT up"
while :; do sleep 3600; done
`;
}
