// udhcpc(8), busybox's DHCP client in the stick's root: an address for one NIC, so the
// stick can send its reports (liken.report=URL). The script it runs on a lease is
// UDHCPC_SCRIPT, which the stick's build writes.
import { run } from "./exec.ts";

export const UDHCPC_SCRIPT = "/usr/share/udhcpc/default.script";

/** Asks for a lease on `iface` and configures it; throws when no server answered. */
export async function leaseAddress(iface: string): Promise<void> {
  await run(
    "udhcpc",
    [
      ...["-i", iface],
      "-f", // in the foreground,
      "-q", // and quit once it has a lease: nothing renews it, the stick is short-lived
      "-n", // fail when no lease comes, instead of retrying for ever
      ...["-t", "4", "-T", "2"], // 4 discovers, 2 s apart
      ...["-s", UDHCPC_SCRIPT],
    ],
    { timeoutMs: 20_000 },
  );
}

/**
 * The script udhcpc runs with $1 = deconfig, bound or renew and the lease in the
 * environment ($ip, $mask as a prefix length, $router).
 */
export const UDHCPC_SCRIPT_TEXT = `#!/bin/sh
# shellcheck disable=SC2154 # udhcpc passes interface, ip, mask and router in the environment
case "$1" in
  deconfig) ip -4 addr flush dev "$interface" 2>/dev/null ;;
  bound|renew)
    ip -4 addr flush dev "$interface" 2>/dev/null
    ip addr add "$ip/\${mask:-24}" dev "$interface"
    for r in $router; do ip route add default via "$r" dev "$interface" 2>/dev/null; break; done
    ;;
esac
exit 0
`;
