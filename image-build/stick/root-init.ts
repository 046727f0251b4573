// The /init of the stick's root, which the initramfs (initrd-init.ts) switch_roots into
// with the payload verified and mounted on /payload: it loads the drivers the hardware asks
// for (by modalias) and brings every NIC's link up while it starts the unattended install
// that `liken.install=NAME` names (and sends its report to `liken.report=URL`), or the menu
// on the screen and on the serial console.
// PID 1 never exits: a kernel whose init ends panics.
import { dirname } from "node:path";
import { SERIAL_CONSOLES } from "../../common/arch.ts";
import { STICK_DRIVERS_LOADING } from "../../formats/boot-interface.ts";
import { PAYLOAD_MOUNT, STICK_PAYLOAD, STICK_RUN } from "../../formats/stick-payload.ts";
import { codeCacheFile } from "../code-cache.ts";
import { MODALIASES_SH } from "../modaliases-sh.ts";
import { STICK_SAY_AND_HOLD } from "./console-sh.ts";
import { MEDIUM_FILE } from "./initrd-init.ts";

/** The command's bundle in the stick's root, and the file that starts it with its code cache. */
export const STICK_BUNDLE = "/usr/lib/liken-stick/liken-stick.cjs";
export const STICK_START = "/usr/lib/liken-stick/start.cjs";

/**
 * /usr/bin/liken-stick, the command on the stick. Node.js reads files on a pool of 4
 * threads, and a disk that does not answer holds the threads of its unanswered reads
 * (hardware/disks/disk-reader.ts: at most 4 a disk): 16 keep the menu reading the other
 * disks and its own files past a few such disks.
 */
export function stickCommand(): string {
  return `#!/bin/sh\nLIKEN_STICK=1 UV_THREADPOOL_SIZE=16 exec /usr/bin/node ${STICK_START} "$@"\n`;
}

export function stickRootInit(): string {
  return `#!/bin/busybox sh
# The root is read-only: busybox's applets go to /run/bin, behind the root's own tools.
/bin/busybox mkdir -p /run/bin
/bin/busybox --install -s /run/bin
export PATH=/usr/sbin:/usr/bin:/sbin:/bin:/run/bin HOME=/root LANG=C.UTF-8 TMPDIR=/tmp
mount -t tmpfs -o mode=1777 tmpfs /tmp
mount -t tmpfs -o mode=0700 tmpfs /root
# The TPM's event log (what the firmware measured: option ROMs before Secure Boot enrollment).
mount -t securityfs securityfs /sys/kernel/security 2>/dev/null

${STICK_SAY_AND_HOLD}

INSTALL='' THEN=poweroff WIPE='' REPAIR='' DISKS='' SHELL_ONLY='' REPORT=''
# The record of what this stick installed lives on its payload; an ISO or the network cannot
# be written, so there it lasts until power-off (their builds refuse liken.wipe=1).
RECORD=${STICK_PAYLOAD.record}
[ "$(cat ${MEDIUM_FILE} 2>/dev/null)" = stick ] || RECORD=${STICK_RUN.record}
# shellcheck disable=SC2013 # the command line is one line of words, split on purpose
for word in $(cat /proc/cmdline); do
  case "$word" in
    liken.report=*) REPORT="--report \${word#liken.report=}" ;;
    liken.install=*) INSTALL="\${word#liken.install=}" ;;
    liken.disks=*) DISKS=$(echo "\${word#liken.disks=}" | tr , ' ') ;;
    liken.shell=1) SHELL_ONLY=1 ;;
    liken.then=*) THEN="\${word#liken.then=}" ;;
    liken.wipe=1) WIPE=--wipe ;;
    liken.repair=1) REPAIR=--repair ;;
  esac
done

say "liken-stick: loading drivers"
# The app read from the stick (decompressed, every block checked) while the drivers load,
# rather than page by page when the menu starts; the initramfs started on Node.js.
cat ${STICK_BUNDLE} ${codeCacheFile(STICK_BUNDLE)} > /dev/null 2>&1 &
# The drivers load while the menu or the install starts; whatever lists disks or NICs waits
# for ${STICK_DRIVERS_LOADING} to go (hardware/stick-drivers.ts).
mkdir -p ${dirname(STICK_DRIVERS_LOADING)}
: > ${STICK_DRIVERS_LOADING}
(
  # The drivers load at the lowest priority: on a small machine Node.js's start comes
  # first. (/proc/self is this subshell: read is built in.)
  read -r self _ < /proc/self/stat
  renice -n 19 -p "$self" > /dev/null 2>&1
  # Bus drivers bring new devices, whose modalias asks for more drivers: rounds until a
  # round's drivers brought no new device, so the machine's own disks are all in the menu.
  SEEN=
  # shellcheck disable=SC2034 # round only counts the rounds
  for round in $(seq 1 60); do
    ALIASES=$(${MODALIASES_SH})
    [ "$ALIASES" = "$SEEN" ] && break
    SEEN=$ALIASES
    echo "$ALIASES" | xargs modprobe -qa 2>/dev/null
    sleep 0.3
  done
  # Every NIC's link up, with no address: the hardware report reads carrier from a live link.
  for n in /sys/class/net/*; do
    [ -e "$n/device" ] && ip link set dev "\${n##*/}" up 2>/dev/null
  done
  say "liken-stick: drivers loaded ($(wc -l < /proc/modules) modules)"
  rm -f ${STICK_DRIVERS_LOADING}
) &

# A signed stick in a machine in setup mode enrolls the cluster's keys first (liken-stick
# enroll: it reads the TPM event log, writes db, KEK and PK, and restarts the machine); on
# any other machine it returns at once. Its refusal or failure holds here, PK not written.
if [ -d ${STICK_PAYLOAD.secureBoot} ]; then
  mkdir -p /run/liken
  # shellcheck disable=SC2086 # $CONSOLES is a list of devices
  { liken-stick enroll 2>&1; echo $? > /run/liken/enroll.rc; } | tee $CONSOLES > /dev/null
  [ "$(cat /run/liken/enroll.rc)" = 0 ] || hold "the cluster's Secure Boot keys were not enrolled; why is above"
fi

if [ -n "$INSTALL" ]; then
  [ "$THEN" = reboot ] || THEN=poweroff
  say "liken-stick: unattended install as $INSTALL"
  # Once per machine: the verb writes nothing where the stick's record finds its install, and
  # makes the installed disk the next boot. Its output and error go to every console; tee
  # would swallow its exit code, so the code goes through a file.
  mkdir -p /run/liken
  # $WIPE, $REPAIR, $REPORT (--report URL) and $DISKS are each no word, or words to split; $CONSOLES
  # is a list of devices.
  # shellcheck disable=SC2086
  { liken-stick unattended --as "$INSTALL" --then "$THEN" --manifest ${STICK_PAYLOAD.manifest} \\
      --release ${STICK_PAYLOAD.release} --status-file ${STICK_RUN.installStatus} \\
      --record $RECORD $WIPE $REPAIR $REPORT $DISKS 2>&1
    echo $? > /run/liken/unattended.rc; } | tee $CONSOLES > /dev/null
  if [ "$(cat /run/liken/unattended.rc)" = 0 ]; then
    umount ${PAYLOAD_MOUNT}; sync
    if [ "$THEN" = reboot ]; then reboot -f; else poweroff -f; fi
  fi
  hold "the unattended install as $INSTALL did not finish; its error is above"
fi

[ -n "$SHELL_ONLY" ] && hold "liken.shell=1: no menu"

# The menu on the screen and on the first serial port where each is there, each started
# again if it ends: a menu nobody can see costs the other one its start on a small machine.
# A screen is a console other than the kernel's dummy one; the serial port is a PC's ttyS0
# or an Arm server's PL011 (ttyAMA0), and one of type 0 is a port no UART answers. With
# neither, the menu goes on tty1 all the same.
start_menu() {
  term=linux; [ "$1" != tty1 ] && term=vt220
  (while :; do TERM=$term setsid -c liken-stick menu <"/dev/$1" >"/dev/$1" 2>&1; sleep 1; done) &
}
has_screen() {
  for v in /sys/class/vtconsole/vtcon*/name; do
    [ -e "$v" ] && ! grep -q dummy "$v" && return 0
  done
  return 1
}
first_uart() {
  for u in ${SERIAL_CONSOLES.join(" ")}; do
    [ -c "/dev/$u" ] && [ "$(cat "/sys/class/tty/$u/type" 2>/dev/null)" != 0 ] && echo "$u" && return
  done
}
UART=$(first_uart)
[ -n "$UART" ] && start_menu "$UART"
if has_screen || [ -z "$UART" ]; then
  start_menu tty1
else
  # A screen whose driver loads by modalias (a BMC's VGA without the firmware's
  # framebuffer) comes with the drivers.
  while [ -e ${STICK_DRIVERS_LOADING} ]; do sleep 0.2; done
  has_screen && start_menu tty1
fi
while :; do sleep 3600; done
`;
}
