// arping(8), busybox's applet in the release's root and the stick's: duplicate address
// detection for an IPv4 address before it is configured (RFC 5227's probe: an ARP request
// from 0.0.0.0, which no host's cache learns from). IPv6 needs none of this: the kernel
// runs its own detection on every address added (tools/ip.ts reads `dadfailed`).
import { run } from "./exec.ts";

/** Free: nobody answered. Taken: a host answered for it, `by` its MAC when printed. */
export type ProbeResult =
  | { readonly kind: "free" }
  | { readonly kind: "taken"; readonly by: string | null };

/** Two probes a second apart, two seconds in all: a holder answers the first. */
const PROBES = ["-c", "2", "-w", "2"];

/**
 * Asks on `iface` (up) whether another host holds `address` (no prefix). Throws when the
 * probe could not be sent (no such interface, the interface down): busybox exits 2 then.
 */
export async function probeAddress(iface: string, address: string): Promise<ProbeResult> {
  const { stdout, exitCode } = await run("arping", ["-D", "-I", iface, ...PROBES, address], {
    timeoutMs: 10_000,
    // 1: a reply came, the address is taken (-D's exit code)
    okExitCodes: [1],
  });
  return exitCode === 0 ? { kind: "free" } : { kind: "taken", by: replyMac(stdout) };
}

/** The MAC in `Unicast reply from 10.0.40.11 [52:54:00:12:34:56] 0.8ms`. */
export function replyMac(stdout: string): string | null {
  return /reply from \S+ \[([0-9a-f:]{17})\]/i.exec(stdout)?.[1]?.toLowerCase() ?? null;
}
