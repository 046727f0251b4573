// An IPv4 address and a default route for the stick, by DHCP on the first NIC with carrier
// that gets a lease: what liken.report=URL needs. A machine that has a route keeps it.
import { readdir, readFile } from "node:fs/promises";
import { join } from "node:path";
import { leaseAddress } from "../tools/udhcpc.ts";

const NET = "/sys/class/net";

/** The NIC that got a lease (or "the existing route"); throws with every NIC's failure. */
export async function requireNetwork(): Promise<string> {
  const routes = await readFile("/proc/net/route", "utf8").catch(() => "");
  // Destination 00000000: a default route is there already.
  if (/^\S+\s+00000000\s/m.test(routes)) return "the existing route";
  const failures: string[] = [];
  for (const name of (await readdir(NET).catch(() => [] as string[])).sort()) {
    const read = (file: string) =>
      readFile(join(NET, name, file), "utf8").then(
        (t) => t.trim(),
        () => null,
      );
    if ((await read("device/uevent")) === null) continue;
    if ((await read("carrier")) !== "1") {
      failures.push(`${name}: no carrier`);
      continue;
    }
    try {
      await leaseAddress(name);
      return name;
    } catch (error) {
      failures.push(`${name}: no DHCP lease (${(error as Error).message.split("\n")[0]})`);
    }
  }
  throw new Error(`no network: ${failures.join("; ") || "no NIC"}`);
}
