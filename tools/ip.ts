// ip(8), busybox's in the release's root: renames a NIC to its predictable name and brings
// a declared port up. A link is renamed while it is down, as udev does.
import { run } from "./exec.ts";

export async function renameLink(from: string, to: string): Promise<void> {
  await run("ip", ["link", "set", "dev", from, "name", to], { timeoutMs: 10_000 });
}

export async function setLinkUp(name: string): Promise<void> {
  await run("ip", ["link", "set", "dev", name, "up"], { timeoutMs: 10_000 });
}

// iproute2's ip on the host: the network namespaces the netboot tests boot machines in.

/** A network namespace holding a bridge with `cidr` (10.77.0.1/24), its loopback up. */
export async function addBridgedNamespace(ns: string, bridge: string, cidr: string): Promise<void> {
  await run("ip", ["netns", "add", ns], { timeoutMs: 10_000 });
  const inNs = (...args: string[]) => run("ip", ["-n", ns, ...args], { timeoutMs: 10_000 });
  await inNs("link", "set", "lo", "up");
  await inNs("link", "add", bridge, "type", "bridge");
  await inNs("addr", "add", cidr, "dev", bridge);
  await inNs("link", "set", bridge, "up");
}

/** Deletes the namespace; its bridge and any tap moved into it go with it. */
export async function deleteNamespace(ns: string): Promise<void> {
  await run("ip", ["netns", "delete", ns], { timeoutMs: 10_000 });
}

/**
 * The shell script QEMU runs with a new tap's name (-netdev tap,script=): moves the tap
 * into `ns` and onto `bridge`. QEMU's file descriptor follows the device.
 */
export function tapIntoNamespaceScript(ns: string, bridge: string): string {
  return `#!/bin/sh\nset -e\nip link set dev "$1" netns ${ns}\nip -n ${ns} link set dev "$1" master ${bridge} up\n`;
}

/** The argument array that runs `command` inside `ns` (ip netns exec). */
export function inNamespace(ns: string, command: string, args: readonly string[]): string[] {
  return ["netns", "exec", ns, command, ...args];
}

/** Joins a link-layer multicast group (`ip maddr add`), so the NIC delivers its frames. */
export async function joinMulticast(iface: string, mac: string): Promise<void> {
  await run("ip", ["maddr", "add", mac, "dev", iface], { timeoutMs: 10_000 });
}

/** Undoes one joinMulticast: the kernel counts joins. */
export async function leaveMulticast(iface: string, mac: string): Promise<void> {
  await run("ip", ["maddr", "del", mac, "dev", iface], { timeoutMs: 10_000 });
}
