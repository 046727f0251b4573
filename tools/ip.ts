// ip(8), busybox's in the release's root: renames a NIC to its predictable name and brings
// a declared port up. A link is renamed while it is down, as udev does.
import { run } from "./exec.ts";

export async function renameLink(from: string, to: string): Promise<void> {
  await run("ip", ["link", "set", "dev", from, "name", to], { timeoutMs: 10_000 });
}

export async function setLinkUp(name: string): Promise<void> {
  await run("ip", ["link", "set", "dev", name, "up"], { timeoutMs: 10_000 });
}
