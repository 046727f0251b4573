// Run inside a test's network namespace (`ip netns exec NS node --import tsx test/netns/listen-lldp.ts
// IFACE MAC MS`): what the hardware report hears on IFACE, as JSON on stdout.
import { listenForNeighbors } from "../../hardware/lldp-neighbors.ts";

const [iface = "", mac = "", ms = "2000"] = process.argv.slice(2);
const heard = await listenForNeighbors(
  [{ kernelName: iface, name: iface, mac }],
  Number(ms),
  "liken-stick leader-1",
);
process.stdout.write(`${JSON.stringify(heard.get(iface) ?? null)}\n`);
