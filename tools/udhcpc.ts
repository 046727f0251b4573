// udhcpc(8), busybox's DHCP client, in the release's root, the stick's and the netboot
// initramfs: an IPv4 address for one NIC. On a lease it runs UDHCPC_SCRIPT (both roots'
// builds write it; the initramfs has its own copy of the text), which configures the lease's
// address beside any static one and records it in UDHCPC_LEASES/<interface>.
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { run } from "./exec.ts";

export const UDHCPC_SCRIPT = "/usr/share/udhcpc/default.script";

/** Where the script records each interface's lease (`10.0.7.20/24`) while it holds one. */
export const UDHCPC_LEASES = "/run/liken/leases";

/** 4 discovers, 2 s apart: a server on the segment answers the first. */
const TRIES = ["-t", "4", "-T", "2"];

/**
 * Asks for a lease on `iface` and configures it, then quits: nothing renews it, for what
 * is short-lived (the stick's report without a declared network). Throws when no server
 * answered.
 */
export async function leaseAddress(iface: string): Promise<void> {
  await run(
    "udhcpc",
    [
      ...["-i", iface],
      "-f", // in the foreground,
      "-q", // and quit once it has a lease
      "-n", // fail when no lease comes, instead of retrying for ever
      ...TRIES,
      ...["-s", UDHCPC_SCRIPT],
    ],
    { timeoutMs: 20_000 },
  );
}

/**
 * Asks for a lease on `iface` and leaves udhcpc running in the background, for as long
 * as the machine runs, to renew it (and to ask again when none came: `-b`). Returns the
 * lease's address in CIDR form, or null when no server answered in TRIES.
 */
export async function keepLease(iface: string): Promise<string | null> {
  // udhcpc goes to the background once it has a lease, or once the tries are spent (-b);
  // this process returns then.
  await run("udhcpc", ["-i", iface, "-b", ...TRIES, "-s", UDHCPC_SCRIPT], { timeoutMs: 30_000 });
  return readLease(iface);
}

/** The lease the script recorded for `iface`; null when it holds none. */
export async function readLease(iface: string): Promise<string | null> {
  // No record: the script never bound a lease on this interface.
  const text = await readFile(join(UDHCPC_LEASES, iface), "utf8").catch(() => "");
  return text.trim() || null;
}

/**
 * The script udhcpc runs with $1 = deconfig, bound, renew, leasefail or nak and the lease
 * in the environment ($interface, $ip, $mask as a prefix length, $router). It touches only
 * the lease's own address, so static addresses on the same interface stay; busybox's ip
 * and iproute2's both run it (the netboot initramfs has busybox's).
 */
export const UDHCPC_SCRIPT_TEXT = `#!/bin/sh
# shellcheck disable=SC2154 # udhcpc passes interface, ip, mask and router in the environment
lease=${UDHCPC_LEASES}/$interface
old=$(cat "$lease" 2>/dev/null)
case "$1" in
  deconfig)
    [ -n "$old" ] && ip addr del "$old" dev "$interface" 2>/dev/null
    rm -f "$lease"
    ;;
  bound|renew)
    new="$ip/\${mask:-24}"
    if [ "$old" != "$new" ]; then
      [ -n "$old" ] && ip addr del "$old" dev "$interface" 2>/dev/null
      ip addr add "$new" dev "$interface"
    fi
    mkdir -p ${UDHCPC_LEASES} && echo "$new" > "$lease"
    for r in $router; do ip route add default via "$r" dev "$interface" 2>/dev/null; break; done
    ;;
esac
exit 0
`;
