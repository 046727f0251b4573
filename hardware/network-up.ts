// An IPv4 address and a default route for the stick, by DHCP on the first NIC with carrier
// that gets a lease: what liken.report=URL needs. A machine that has a route keeps it.
import { readFile } from "node:fs/promises";
import { leaseAddress } from "../tools/udhcpc.ts";
import { findNics } from "./sysfs.ts";

/** The NIC that got a lease (or "the existing route"); throws with every NIC's failure. */
export async function requireNetwork(): Promise<string> {
  // No routing table read: no default route is assumed, and a lease is asked for.
  const routes = await readFile("/proc/net/route", "utf8").catch(() => "");
  // Destination 00000000: a default route is there already.
  if (/^\S+\s+00000000\s/m.test(routes)) return "the existing route";
  const failures: string[] = [];
  for (const nic of (await findNics()).sort((a, b) => a.name.localeCompare(b.name))) {
    if (!nic.carrier) {
      failures.push(`${nic.name}: no carrier`);
      continue;
    }
    try {
      await leaseAddress(nic.name);
      return nic.name;
    } catch (error) {
      failures.push(`${nic.name}: no DHCP lease (${(error as Error).message.split("\n")[0]})`);
    }
  }
  throw new Error(`no network: ${failures.join("; ") || "no NIC"}`);
}
