// The /init of a release's initramfs: it finds the slot the boot entry names, maps it
// through dm-verity with the entry's root hash, mounts the root read-only and switch_roots
// into the root's /sbin/init (docs/rollback.md, What a release's root does). During a
// trial a watchdog is armed in its first lines, and every failure resets the machine; on
// the proven slot a failure holds the console with what to do, so a machine never loops.
import { SERIAL_CONSOLES } from "../../common/arch.ts";
import {
  BOOT_ROOT,
  INITRAMFS_MODULES,
  LOADER_GUID,
  TRIAL_FAILURE_VARIABLE,
  TRIAL_MARK,
  VERITY_DM_NAME,
  VERITY_DM_UUID_PREFIX,
} from "../../formats/boot-interface.ts";
import { MODALIASES_SH } from "../modaliases-sh.ts";
import { type ReadAhead, readAheadSh, warmStartSh } from "../node-read-ahead.ts";

/**
 * How long a hung trial runs before its watchdog resets it, about 30 s whichever it is:
 * i6300esb's two stages each last its heartbeat; iTCO_wdt's and softdog's one timeout.
 * Loaded by modalias, the drivers take their parameters from modprobe.d.
 */
export function watchdogOptions(): string {
  return [
    "options i6300esb heartbeat=15",
    "options sbsa_gwdt timeout=30",
    "options iTCO_wdt heartbeat=30",
    "options sp5100_tco heartbeat=30",
    "options wdat_wdt timeout=30",
    "options ipmi_watchdog timeout=30",
    "options softdog soft_margin=30",
    "",
  ].join("\n");
}

/** say (a line on the screen and the first serial port) and hold: both of a release's inits. */
export const RELEASE_SAY_AND_HOLD = `say() {
  for c in /dev/tty0 ${SERIAL_CONSOLES.map((c) => `/dev/${c}`).join(" ")}; do [ -c "$c" ] && echo "$*" > "$c" 2>/dev/null; done
}

hold() {
  say "liken: the boot holds here; power the machine off"
  while :; do sleep 3600; done
}
`;

export function releaseInit(
  version: string,
  storageModules: readonly string[],
  /** The parts of Node.js a start reads (node-read-ahead.ts). */
  nodeReadAhead: readonly ReadAhead[],
): string {
  const storage = storageModules.join(" ");
  return `#!/bin/busybox sh
/bin/busybox --install -s /bin
export PATH=/bin:/sbin
mkdir -p /proc /sys /dev /run /root
mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev
mount -t tmpfs -o mode=0755 tmpfs /run
mkdir -p /run/liken
# The kernel loads modules it needs itself (crc32c for ext4) through this helper.
echo /bin/modprobe > /proc/sys/kernel/modprobe
version=${version}

${RELEASE_SAY_AND_HOLD}
# Into the kernel's log at debug level: not on the console twice, but in a crash record.
klog() {
  echo "<7>$*" > /dev/kmsg 2>/dev/null
}

# The drivers the hardware present asks for, by modalias, from the release's modules.
load_by_modalias() {
  ${MODALIASES_SH} | xargs modprobe -qa 2>/dev/null
}

# A trial resets; the proven slot holds with the reason and what to do.
fail() {
  say "liken: $1"
  klog "liken: initramfs: $1"
  if [ -n "$trial" ]; then
    printf '\\007\\000\\000\\000%s' "$boot_id $version $slot $1" > /run/liken/failure
    cat /run/liken/failure > /sys/firmware/efi/efivars/${TRIAL_FAILURE_VARIABLE} 2>/dev/null
    say "liken: the trial of $version cannot boot; resetting in 10 s, the machine returns to its proven slot"
    sleep 10
    reboot -f
  fi
  say "liken: $2"
  hold
}

# shellcheck disable=SC2013 # the command line is one line of words, split on purpose
for word in $(cat /proc/cmdline); do
  case "$word" in
    root=PARTUUID=*) partuuid="\${word#root=PARTUUID=}" ;;
    liken.slot=*) slot="\${word#liken.slot=}" ;;
    liken.verity=*) verity="\${word#liken.verity=}" ;;
  esac
done
boot_id=$(cat /proc/sys/kernel/random/boot_id)

modprobe -qa efivarfs efi_pstore 2>/dev/null
mount -t efivarfs efivarfs /sys/firmware/efi/efivars 2>/dev/null
loader_var() {
  tail -c +5 "/sys/firmware/efi/efivars/$1-${LOADER_GUID}" 2>/dev/null | tr -d '\\000'
}
# An entry's name without its folder, .conf and boot counter: liken-b-2.0.0.
entry_key() {
  n="\${1##*\\\\}"
  n="\${n%.conf}"
  echo "\${n%%+*}"
}
# systemd-boot sets LoaderBootCountPath when it counts an entry down: a trial. The variable
# lives until the power goes, so when a trial's image fails to start (the firmware refuses
# it) and the firmware starts systemd-boot again, which then boots the proven entry, it
# still names the trial's entry: a trial only when it names the entry booted now.
trial=
count_path=$(loader_var LoaderBootCountPath)
selected=$(loader_var LoaderEntrySelected)
if [ -n "$count_path" ]; then
  [ -z "$selected" ] || [ "$(entry_key "$count_path")" = "$(entry_key "$selected")" ] && trial=1
fi
klog "liken: boot $boot_id release $version slot $slot\${trial:+ trial}"

if [ -n "$trial" ]; then
  echo "$version $slot" > ${TRIAL_MARK}
  # The hardware's watchdog by modalias (two rounds: lpc_ich brings iTCO_wdt's device),
  # softdog when there is none. Opened, pinged and closed without the magic V, it keeps
  # running: nothing pings it until the root's boot agent takes it over.
  load_by_modalias
  load_by_modalias
  [ -e /sys/firmware/dmi/entries/38-0 ] && modprobe -qa ipmi_si ipmi_devintf ipmi_watchdog 2>/dev/null
  [ -e /dev/watchdog ] || modprobe -q softdog 2>/dev/null
  if echo k > /dev/watchdog 2>/dev/null; then
    say "liken: watchdog $(cat /sys/class/watchdog/watchdog0/identity 2>/dev/null) armed for the trial of $version"
  else
    say "liken: no watchdog could be armed: a hang in this trial is not reset"
  fi
fi

# A signed release's command line (inside its unified kernel image, made before it had a
# slot) names only the root's verity hash: the slot is the one in the name of the entry
# systemd-boot chose (liken-SLOT-VERSION...), on the disk whose ESP it started from.
esp_partuuid=
if [ -z "$slot" ]; then
  case "$selected" in
    liken-a-*) slot=a ;;
    liken-b-*) slot=b ;;
  esac
  esp_partuuid=$(loader_var LoaderDevicePartUUID | tr A-F a-f)
fi

# shellcheck disable=SC2015 # fail when any of the three is empty: it runs only then
[ -n "$slot" ] && [ -n "$verity" ] && [ -n "$partuuid$esp_partuuid" ] ||
  fail "the boot entry names no slot (liken.slot= or a liken-SLOT entry), no root or no liken.verity=" "boot the stick and select wipe and reinstall"

# The partition labelled liken-SLOT on the disk holding the ESP systemd-boot started from.
slot_on_boot_disk() {
  esp_device=$(blkid -c /dev/null -l -o device -t PARTUUID="$esp_partuuid" 2>/dev/null)
  [ -n "$esp_device" ] || return
  disk=$(basename "$(readlink -f "/sys/class/block/\${esp_device#/dev/}/..")")
  for candidate in $(blkid -c /dev/null -o device -t PARTLABEL="liken-$slot" 2>/dev/null); do
    if [ "$(basename "$(readlink -f "/sys/class/block/\${candidate#/dev/}/..")")" = "$disk" ]; then
      echo "$candidate"
      return
    fi
  done
}

# dm-verity and erofs first: the kernel ends each module's load by waiting for every
# driver's probe still running, and the storage drivers start theirs next.
modprobe -qa dm_mod dm_verity erofs 2>/dev/null
# The storage drivers the release has load beside the search, at once (far faster under
# emulation than reading every modalias), then by modalias in rounds: a bus driver
# (virtio_pci, ahci) brings new devices whose modalias asks for the next driver. The slot
# is found once its own disk's driver has found it, not after every controller's probe
# (an AHCI controller's empty ports: 0.4 s under emulation), and the root does not wait
# for the rest: a driver still loading at switch_root finishes in the kernel, and those
# after it find their files gone and are the root's boot agent's, which loads every
# device's driver by modalias and reads the disks they bring before it stages.
modprobe -qa ${storage} 2>/dev/null &
# The ESP's filesystem loads while the slot is found: the root's boot agent mounts it (the
# state partition's ext4 is the root's own module).
modprobe -qa vfat nls_cp437 nls_ascii nls_utf8 2>/dev/null &
filesystems=$!
device=
for round in $(seq 1 75); do
  if [ -n "$partuuid" ]; then
    device=$(blkid -c /dev/null -l -o device -t PARTUUID="$partuuid" 2>/dev/null)
  else
    device=$(slot_on_boot_disk)
  fi
  [ -n "$device" ] && break
  [ $((round % 5)) -eq 0 ] && load_by_modalias
  sleep 0.2
done
[ -n "$device" ] ||
  fail "no partition \${partuuid:+PARTUUID=$partuuid}\${esp_partuuid:+liken-$slot beside the ESP PARTUUID=$esp_partuuid} (slot $slot): the disk or its driver is missing" "run the hardware report from the stick"
[ -n "$partuuid" ] || partuuid=$(blkid -c /dev/null -s PARTUUID -o value "$device")
echo "$slot $partuuid" > ${BOOT_ROOT}

# Every block the root reads is checked against the entry's root hash: the hash tree
# follows the data blocks in the slot (docs/install.md, The slots).
root_hash="\${verity%%:*}"
blocks="\${verity##*:}"
# Maps and mounts the slot on $1; on failure says why in $why and leaves nothing mapped.
# With $read_all set, every block is read through dm-verity first, so a copy with one bad
# block anywhere is refused here, while another copy can still be booted.
map_root() {
  DM_DISABLE_UDEV=1 dmsetup create ${VERITY_DM_NAME} --readonly --noudevsync --uuid "${VERITY_DM_UUID_PREFIX}$root_hash" \\
    --table "0 $((blocks * 8)) verity 1 $1 $1 4096 4096 $blocks $blocks sha256 $root_hash -" 2>/run/liken/dmsetup.err || {
    why="slot $slot ($1) does not map through dm-verity: $(tail -n 1 /run/liken/dmsetup.err)"
    return 1
  }
  if [ -n "$read_all" ] && ! cat /dev/mapper/${VERITY_DM_NAME} > /dev/null 2>/run/liken/read.err; then
    why="slot $slot ($1) does not verify: a block of it does not match the release's hash tree"
  elif mount -t erofs -o ro /dev/mapper/${VERITY_DM_NAME} /root 2>/run/liken/mount.err; then
    return 0
  else
    why="the root of slot $slot does not mount (verity or erofs): $(tail -n 1 /run/liken/mount.err)"
  fi
  DM_DISABLE_UDEV=1 dmsetup remove ${VERITY_DM_NAME} 2>/dev/null
  return 1
}
# A mirrored system disk has a copy of this slot on its other member (the same GPT name on
# another disk). Any copy may be booted whose every block verifies against this entry's root
# hash: dm-verity makes it this release byte for byte, wherever it lies.
copies=$(blkid -c /dev/null -o device -t PARTLABEL="liken-$slot" 2>/dev/null | grep -vx "$device")
read_all=
[ -n "$copies" ] && read_all=1
if ! map_root "$device"; then
  mapped=
  for copy in $copies; do
    say "liken: $why; booting the copy on $copy"
    klog "liken: initramfs: $why; booting the copy on $copy"
    map_root "$copy" && mapped=$copy && break
  done
  [ -n "$mapped" ] || fail "$why" "boot the stick and select wipe and reinstall"
fi
[ -x /root/sbin/init ] ||
  fail "the root of slot $slot has no /sbin/init" "boot the stick and select wipe and reinstall"

say "liken: slot $slot verified by dm-verity, switching to its root"
[ -n "$trial" ] && echo k > /dev/watchdog 2>/dev/null
# What a start of Node.js, which the root's boot agent runs first, reads of it is read ahead:
# decompressed and checked against the hash tree while the root's init starts, not page by
# page as Node.js starts; and Node.js starts once beside it, reading in a start's own order.
${readAheadSh("/root/usr/bin/node", nodeReadAhead)}
${warmStartSh("/root")}
# The boot agent mounts the ESP and the state partition first thing.
wait $filesystems
# What the initramfs loaded: the root's boot agent names it when a declared module's
# parameters could not apply because it was loaded here first.
cut -d " " -f 1 /proc/modules > ${INITRAMFS_MODULES}
for m in /dev /proc /sys /run; do mount -o move "$m" "/root$m"; done
exec switch_root /root /sbin/init
`;
}
