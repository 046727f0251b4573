// How the stick's initramfs finds its payload, per medium, as shell for its /init: on a
// stick (a USB disk, or the raw image written to any disk) the partition with the payload's
// fixed PARTUUID; on an ISO (a CD or a BMC's virtual media, or the ISO written to a USB
// disk with dd) the ISO 9660 filesystem with the payload's volume label; on the network the
// files of liken.payload=URL, fetched into memory over HTTP. Each ends with /payload holding
// the payload and every file of the checksums file checked, or holds the console saying
// what to do; $PAYLOAD names where it came from.
import { PAYLOAD_MOUNT, STICK_PAYLOAD } from "../../formats/stick-payload.ts";

export type StickMedium =
  | { readonly kind: "stick"; readonly payloadPartUuid: string }
  | { readonly kind: "iso"; readonly volumeLabel: string }
  | { readonly kind: "net" };

export function findPayloadSh(medium: StickMedium, checksumsFile: string): string {
  switch (medium.kind) {
    case "stick":
      return `say "liken-stick: finding the stick"
${waitForDevice(`$(blkid -c /dev/null -l -o device -t PARTUUID=${medium.payloadPartUuid} 2>/dev/null)`, `the stick's payload partition (PARTUUID ${medium.payloadPartUuid}) did not appear: write the stick again, or try another USB port`)}
fs_modules
mount -t vfat -o rw,noatime "$PAYLOAD" ${PAYLOAD_MOUNT} || hold "cannot mount the payload partition $PAYLOAD: write the stick again"
(cd ${PAYLOAD_MOUNT} && sha256sum -c -s ${checksumsFile}) || hold "the payload's checksums do not match: write the stick again"`;
    case "iso":
      // The filesystem starts the medium (/dev/sr0, or /dev/sdX for the ISO written to a
      // disk), and a disk's GPT covers it with a partition, so blkid's search, which gives
      // a filesystem under a partition to the partition, misses it: each whole disk is probed.
      return `say "liken-stick: finding the ISO"
iso_disk() {
  for d in /sys/block/*; do
    [ "$(blkid -p -o value -s LABEL "/dev/\${d##*/}" 2>/dev/null)" = ${medium.volumeLabel} ] && echo "/dev/\${d##*/}" && return
  done
}
${waitForDevice("$(iso_disk)", `no CD or disk with the ISO's filesystem (label ${medium.volumeLabel}) appeared: attach the ISO again, or write it again`)}
wait $MODULES_BESIDE
fs_modules
mount -t iso9660 -o ro "$PAYLOAD" ${PAYLOAD_MOUNT} || hold "cannot mount the ISO's filesystem on $PAYLOAD: attach the ISO again, or write it again"
(cd ${PAYLOAD_MOUNT} && sha256sum -c -s ${checksumsFile}) || hold "the ISO's checksums do not match: download the ISO again, or build it again"`;
    case "net":
      return netPayloadSh(checksumsFile);
  }
}

// USB and CD drives enumerate on their own time after their drivers load: 60 s at most.
// A drive that did not answer when first looked at (usb-storage looks at once: initrd-init.ts)
// is looked at again after 5 s, by a rescan of every SCSI host.
function waitForDevice(find: string, missing: string): string {
  return `PAYLOAD=
for i in $(seq 1 300); do
  PAYLOAD=${find}
  [ -n "$PAYLOAD" ] && break
  if [ "$i" = 25 ]; then
    for scan in /sys/class/scsi_host/*/scan; do echo '- - -' > "$scan"; done 2>/dev/null
  fi
  sleep 0.2
done
[ -n "$PAYLOAD" ] || hold "${missing}"`;
}

/** The DHCP client's script in the initramfs (busybox udhcpc). */
export const INITRD_UDHCPC_SCRIPT = "/etc/liken/udhcpc.script";

// The network: every NIC driver the devices ask for, a DHCP lease on the NIC the firmware
// booted from (BOOTIF=01-MAC, which boot.ipxe passes) or else on each NIC with a link in
// turn, then each payload file fetched and checked against its hash in this initramfs
// before the next. The retries follow docs/image.md (Netboot): a download that receives no
// bytes for 60 s stops; a failure waits 10 s, the wait doubling to 2 minutes,
// and the console shows the reason and the time of the next try. A file that arrives but
// does not match its hash holds: the server has the wrong file, and trying again cannot
// help. liken.payload may name the payload folder or the boot.ipxe beside it (iPXE's
// ${filename}): then the payload is its folder's payload/.
function netPayloadSh(checksumsFile: string): string {
  return `say "liken-stick: starting the network"
# The bus drivers (virtio's among them) first, then what their devices ask for; again
# before each try, for a NIC that came late.
wait $MODULES_BESIDE
nic_drivers() {
  # shellcheck disable=SC2046 # each modalias one argument: they hold no space or glob
  modprobe -qa $(cat /sys/bus/*/devices/*/modalias 2>/dev/null | sort -u) 2>/dev/null
}
nic_drivers
PAYLOAD='' BOOTIF=''
# shellcheck disable=SC2013 # the command line is one line of words, split on purpose
for word in $(cat /proc/cmdline); do
  case "$word" in
    liken.payload=*) PAYLOAD=\${word#liken.payload=} ;;
    BOOTIF=*) BOOTIF=$(echo "\${word#BOOTIF=}" | sed 's/^01-//; s/-/:/g' | tr A-F a-f) ;;
  esac
done
[ -n "$PAYLOAD" ] || hold "the kernel command line has no liken.payload=URL: boot through the netboot folder's boot.ipxe, or add liken.payload=http://SERVER/PATH/payload"
case "$PAYLOAD" in *.ipxe) PAYLOAD="\${PAYLOAD%/*}/payload" ;; esac
PAYLOAD=\${PAYLOAD%/}
WAIT=10
next_try() {
  say "liken-stick: $1; next try at $(date -u -d @$(( $(date +%s) + WAIT )) +%H:%M:%S) UTC (in $WAIT s)"
  sleep $WAIT
  WAIT=$(( WAIT * 2 )); [ $WAIT -gt 120 ] && WAIT=120
}
# The NICs to ask: the one the firmware booted from, else every NIC, once its driver made it.
nics() {
  for n in /sys/class/net/*; do
    [ -e "$n/device" ] || continue
    [ -z "$BOOTIF" ] || [ "$(cat "$n/address")" = "$BOOTIF" ] && echo "\${n##*/}"
  done
}
LEASED=
while [ -z "$LEASED" ]; do
  nic_drivers
  # shellcheck disable=SC2034 # i only counts the tries
  for i in $(seq 1 50); do [ -n "$(nics)" ] && break; sleep 0.2; done
  for n in $(nics); do
    ip link set dev "$n" up
    if udhcpc -i "$n" -f -q -n -t 4 -T 2 -s ${INITRD_UDHCPC_SCRIPT} >/dev/null 2>&1; then LEASED=$n; break; fi
  done
  [ -n "$LEASED" ] || next_try "no DHCP server answered on $(nics | tr '\\n' ' ')\${BOOTIF:+(the NIC $BOOTIF booted from)}"
done
say "liken-stick: $LEASED has $(ip -4 -o addr show dev "$LEASED" | awk '{print $4}'); fetching $PAYLOAD"
${fetchSh()}
mount -t tmpfs -o mode=0755 tmpfs ${PAYLOAD_MOUNT}
while read -r hash file; do
  case "$file" in */*) mkdir -p "${PAYLOAD_MOUNT}/\${file%/*}" ;; esac
  WAIT=10
  until fetch "$PAYLOAD/$file" "${PAYLOAD_MOUNT}/$file"; do
    next_try "$PAYLOAD/$file failed: $(tail -n 1 /run/wget.err)"
  done
  [ "$(sha256sum "${PAYLOAD_MOUNT}/$file" | cut -d' ' -f1)" = "$hash" ] ||
    hold "$file from $PAYLOAD/$file is not the file this netboot was built with (its sha256 differs); nothing was written: copy the netboot folder to the server again, or build it again with liken-stick netboot"
done < ${checksumsFile}
# Checked, the payload stays as it was: nothing changes it after its hashes agreed. Its
# reports/ is there, as on a stick, so the menu's report says it cannot be saved.
mkdir -p ${STICK_PAYLOAD.reports}
mount -o remount,ro ${PAYLOAD_MOUNT}`;
}

/**
 * The shell function `fetch URL FILE`: busybox wget into FILE, stopped when FILE has not
 * grown for `stallSeconds` (Debian's busybox wget has no -T, and segfaults when given it);
 * its last error line is in `errorFile`. Returns wget's status, or 1 on a stall.
 */
export function fetchSh(stallSeconds = 60, errorFile = "/run/wget.err"): string {
  return `fetch() {
  rm -f "$2"
  wget -q -O "$2" "$1" 2>${errorFile} &
  WGET=$! LAST=-1 STILL=0
  while kill -0 $WGET 2>/dev/null; do
    sleep 0.2
    SIZE=$(stat -c %s "$2" 2>/dev/null || echo 0)
    if [ "$SIZE" = "$LAST" ]; then STILL=$((STILL + 1)); else STILL=0 LAST=$SIZE; fi
    if [ $STILL -ge ${stallSeconds * 5} ]; then
      kill $WGET; wait $WGET
      echo "no bytes for ${stallSeconds} s" > ${errorFile}
      return 1
    fi
  done
  wait $WGET
}`;
}
