// The switch VM (testing/switch-vm/) proven with nothing of liken's: two of its VMs, one a
// top-of-rack switch, the other a host at the end of two cables (an 802.3ad bond of both
// NICs with VLAN 40 on it carrying 10.41.40.11, MTU 9000). The switch bonds its two
// downlinks as the host's LACP partner, trunks VLAN 40 on the bond and bridges it untagged
// to its uplink, a tap into a namespace whose bridge holds 10.41.40.1/24 at MTU 9000. Both
// cables aggregate, a 9000-byte frame with DF set crosses the bond and the VLAN, and with
// one of the host's cables pulled the host still answers.
import { afterAll, beforeAll, expect, it } from "vitest";
import {
  cables,
  type PeerConfig,
  type SwitchVm,
  startSwitchVm,
  startUplinkNamespace,
  type UplinkNamespace,
  withConsoles,
} from "../../testing/switch-vm/index.ts";

const HOST_ADDRESS = "10.41.40.11";
const HOST_MACS = ["52:54:00:40:00:01", "52:54:00:40:00:02"];
const JUMBO = { payload: 8972, dontFragment: true };
const SWITCH: PeerConfig = { downlinks: 2, lag: "802.3ad", vlans: [40], uplink: true, mtu: 9000 };
const HOST: PeerConfig = {
  name: "host",
  role: "host",
  downlinks: 2,
  lag: "802.3ad",
  vlans: [40],
  mtu: 9000,
  address: `${HOST_ADDRESS}/24`,
};
// LACP at the fast rate: a PDU a second, a partner gone after three missed.
const LACP_MS = 30_000;

let uplink: UplinkNamespace;
let sw: SwitchVm;
let host: SwitchVm;

beforeAll(async () => {
  uplink = await startUplinkNamespace({ cidr: "10.41.40.1/24", mtu: 9000 });
  const links = await cables(2);
  [sw, host] = await Promise.all([
    startSwitchVm({
      config: SWITCH,
      downlinks: links.map((l) => l.switchNic),
      uplink: uplink.uplinkNic(),
    }),
    startSwitchVm({
      config: HOST,
      downlinks: links.map((l, i) => ({ ...l.machineNic, mac: HOST_MACS[i] })),
    }),
  ]);
}, 120_000);
afterAll(async () => {
  await Promise.all([sw?.stop(), host?.stop()]);
  await uplink?.stop();
});

const consoles = () => [sw, host];

it("aggregates both cables: each end's bond has two ports, the other end its partner", async () => {
  await withConsoles(consoles(), async () => {
    const line = await sw.waitFor(/^switch: bond0 aggregator \d+ ports 2 partner /, LACP_MS);
    expect(line).toMatch(new RegExp(`partner ${HOST_MACS[0]}$`));
    const seen = await host.waitFor(/^host: bond0 aggregator \d+ ports 2 partner /, LACP_MS);
    expect(seen).toMatch(new RegExp(`partner ${sw.macs[0]}$`));
  });
});

it("carries a 9000-byte frame with DF set from the namespace to the host's VLAN address", async () => {
  await withConsoles(consoles(), async () => {
    const reply = await uplink.waitForPing(HOST_ADDRESS, JUMBO, 30_000);
    expect(reply.output).toContain("8980 bytes from 10.41.40.11");
  });
});

it("still answers with one of the host's cables pulled", async () => {
  await withConsoles(consoles(), async () => {
    await host.setLink(0, false);
    await host.waitFor("host: eth0 carrier down", 10_000);
    // The switch's end keeps its carrier (a UDP cable has none to lose): LACP takes the
    // port out once three PDUs are missed.
    await sw.waitFor(/^switch: bond0 aggregator \d+ ports 1 partner /, LACP_MS);
    const reply = await uplink.waitForPing(HOST_ADDRESS, JUMBO, 30_000);
    expect(reply.output).toContain("1 received");
  });
});
