// The switch VM's /init, busybox sh as PID 1: reads its configuration from the kernel's
// command line (config.ts configWords), loads the few modules it needs, builds the bond,
// the VLANs and the bridge, says `<name>: ready`, then prints one line for each state
// that changes (a port's carrier, the bond's active port or LACP aggregator) until it is
// powered off. No udev, no service manager: a boot to ready in seconds under TCG.

/** The modules the initramfs carries (with their closures: llc, stp, garp, mrp, tls...). */
export const SWITCH_MODULES = ["virtio_pci", "virtio_net", "bonding", "8021q", "bridge"];

/** The console line of a configured VM: `switch: ready`. */
export const READY = "ready";

/** What a step of /init that fails says first: `switch: failed: <the command>`. */
export const FAILED = "failed: ";

/** How often the state is read, in seconds: LACP's fast rate sends every second. */
const POLL_SECONDS = "0.5";

export function switchInit(): string {
  return `#!/bin/busybox sh
/bin/busybox --install -s /bin
export PATH=/bin
mkdir -p /proc /sys /dev /run
mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev

${READ_CONFIG}
${HELPERS}
${BUILD_LINKS}
${REPORT_STATE}
`;
}

const READ_CONFIG = `name=switch
role=switch
downlinks=1
lag=none
vlans=
uplink=0
mtu=1500
address=
# shellcheck disable=SC2013 # the command line is one line of words, split on purpose
for word in $(cat /proc/cmdline); do
  case "$word" in
    sw.name=*) name="\${word#sw.name=}" ;;
    sw.role=*) role="\${word#sw.role=}" ;;
    sw.downlinks=*) downlinks="\${word#sw.downlinks=}" ;;
    sw.lag=*) lag="\${word#sw.lag=}" ;;
    sw.vlans=*) vlans="\${word#sw.vlans=}" ;;
    sw.uplink=*) uplink="\${word#sw.uplink=}" ;;
    sw.mtu=*) mtu="\${word#sw.mtu=}" ;;
    sw.address=*) address="\${word#sw.address=}" ;;
  esac
done
vlans=$(echo "$vlans" | tr ',' ' ')`;

const HELPERS = `say() {
  echo "$name: $*"
}

# A step that fails leaves the VM up and says so: the test reads why on the console.
fail() {
  say "${FAILED}$*"
  dmesg | tail -n 20
  while :; do sleep 3600; done
}

must() {
  "$@" || fail "$*"
}

# eth0 .. eth<downlinks-1>: the downlinks; eth<downlinks>: the uplink.
downlink_names() {
  i=0
  while [ "$i" -lt "$downlinks" ]; do
    echo "eth$i"
    i=$((i + 1))
  done
}

link_up() {
  must ip link set dev "$1" mtu "$mtu"
  must ip link set dev "$1" up
}`;

const BUILD_LINKS = `must modprobe -a virtio_pci virtio_net
for n in $(downlink_names); do
  [ -e "/sys/class/net/$n" ] || fail "no NIC $n"
done
if [ "$lag" != none ]; then
  must modprobe bonding "mode=$lag" lacp_rate=fast miimon=100
  must ip link set dev bond0 mtu "$mtu"
  for n in $(downlink_names); do
    must ip link set dev "$n" down
    must ip link set dev "$n" mtu "$mtu"
    echo "+$n" > /sys/class/net/bond0/bonding/slaves || fail "bond0 took no $n"
  done
  link_up bond0
  ports=bond0
else
  for n in $(downlink_names); do link_up "$n"; done
  ports=$(downlink_names)
fi
# The interfaces that carry the traffic: each port's VLANs, or the ports themselves.
members=
if [ -n "$vlans" ]; then
  must modprobe 8021q
  for p in $ports; do
    for v in $vlans; do
      must ip link add link "$p" name "$p.$v" type vlan id "$v"
      link_up "$p.$v"
      members="$members $p.$v"
    done
  done
else
  members=$ports
fi
if [ "$role" = switch ]; then
  must modprobe bridge
  must ip link add br0 type bridge
  if [ "$uplink" = 1 ]; then
    link_up "eth$downlinks"
    members="$members eth$downlinks"
  fi
  for m in $members; do must ip link set dev "$m" master br0; done
  link_up br0
  [ -z "$address" ] || must ip addr add "$address" dev br0
else
  # shellcheck disable=SC2086 # one member: the host's port, bond or VLAN interface
  set -- $members
  must ip addr add "$address" dev "$1"
fi
ip link set dev lo up
say "${READY}"`;

// One line per fact; a fact that differs from the last round's is printed.
const REPORT_STATE = `state() {
  for n in /sys/class/net/eth*; do
    n=\${n##*/}
    # the NICs only, not their VLAN interfaces
    case "$n" in *.*) continue ;; esac
    if [ "$(cat "/sys/class/net/$n/carrier" 2>/dev/null)" = 1 ]; then
      echo "$n carrier up"
    else
      echo "$n carrier down"
    fi
  done
  [ -r /proc/net/bonding/bond0 ] || return 0
  awk -v lag="$lag" '
    /^Currently Active Slave:/ { active = $4 }
    /^Active Aggregator Info:/ { agg = 1 }
    agg && /Aggregator ID:/ { id = $3 }
    agg && /Number of ports:/ { ports = $4 }
    agg && /Partner Mac Address:/ { partner = $4; agg = 0 }
    END {
      if (lag == "active-backup") print "bond0 active " (active == "" ? "none" : active)
      else if (lag == "802.3ad") print "bond0 aggregator " id " ports " ports " partner " partner
    }
  ' /proc/net/bonding/bond0
}

# A line no round prints: grep -f with an empty file would match everything.
echo "-" > /run/state
while :; do
  state > /run/state.new
  grep -vxF -f /run/state /run/state.new | while IFS= read -r line; do say "$line"; done
  mv /run/state.new /run/state
  sleep ${POLL_SECONDS}
done`;
