// The way out for the stick's report (docs/install.md, Install unattended): a machine whose
// manifest entry declares interfaces gets them on the stick as its installed self gets
// them at every boot (its NICs under their predictable names, its ports awaited, then the
// bonds, VLANs, addresses, routes and nameservers), so a rack without DHCP hears from it.
// A machine that declares none takes an address by DHCP, as before.
import { lookup } from "node:dns/promises";
import { isIP } from "node:net";
import { bringUpNetwork } from "../../hardware/network/bring-up.ts";
import { awaitPorts, namePredictably } from "../../hardware/network/ports-up.ts";
import { requireNetwork } from "../../hardware/network-up.ts";
import type { Machine } from "../../manifest/types.ts";
import { routeTo } from "../../tools/ip.ts";

/**
 * Brings up `machine`'s network for a report to `url`; says each step through `say` and
 * returns the way it takes ("bond0.40 from 10.41.40.11"). Throws when there is none.
 */
export async function networkToReport(
  machine: Machine | undefined,
  url: string,
  say: (line: string) => void,
): Promise<string> {
  if (!machine || machine.interfaces.length === 0) return requireNetwork();
  const present = await namePredictably(say);
  await awaitPorts(machine.ports, present, say);
  const up = await bringUpNetwork({
    interfaces: machine.interfaces,
    nameservers: machine.nameservers,
  });
  for (const line of up.lines) say(line);
  const host = new URL(url).hostname.replace(/^\[(.*)\]$/, "$1");
  const address = isIP(host) ? host : (await lookup(host)).address;
  // ip's "Network is unreachable" is the answer here: the error below says it in words.
  const route = await routeTo(address).catch(() => null);
  if (!route)
    throw new Error(
      `the declared network of ${machine.name} has no route to ${address}; check its addresses and routes in the manifest`,
    );
  return route.src ? `${route.dev} from ${route.src}` : route.dev;
}
