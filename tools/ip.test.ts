// iproute2's JSON as ip 6.1 prints it: the veth texts are captured from the host, the bond,
// its ports and the VLAN follow iplink_bond.c, iplink_bond_slave.c and iplink_vlan.c.
import { describe, expect, it } from "vitest";
import { bondOptions, parseAddresses, parseLinks } from "./ip.ts";

const VETH_LINKS = `[{"ifindex":1,"ifname":"lo","flags":["LOOPBACK"],"mtu":65536,"qdisc":"noop","operstate":"DOWN","linkmode":"DEFAULT","group":"default","txqlen":1000,"link_type":"loopback","address":"00:00:00:00:00:00","broadcast":"00:00:00:00:00:00","promiscuity":0,"allmulti":0,"min_mtu":0,"max_mtu":0,"inet6_addr_gen_mode":"eui64","num_tx_queues":1,"num_rx_queues":1,"gso_max_size":65536,"gso_max_segs":65535,"tso_max_size":524280,"tso_max_segs":65535,"gro_max_size":65536},{"ifindex":2,"link_index":2,"ifname":"vcapa","flags":["BROADCAST","MULTICAST","UP","LOWER_UP"],"mtu":9000,"qdisc":"noqueue","operstate":"UP","linkmode":"DEFAULT","group":"default","txqlen":1000,"link_type":"ether","address":"8a:74:25:8b:46:f6","broadcast":"ff:ff:ff:ff:ff:ff","link_netnsid":0,"promiscuity":0,"allmulti":0,"min_mtu":68,"max_mtu":65535,"linkinfo":{"info_kind":"veth"},"inet6_addr_gen_mode":"eui64","num_tx_queues":2,"num_rx_queues":2,"gso_max_size":65536,"gso_max_segs":65535,"tso_max_size":524280,"tso_max_segs":65535,"gro_max_size":65536}]
`;

const BOND_LINKS = JSON.stringify([
  {
    ifname: "eno1",
    flags: ["BROADCAST", "MULTICAST", "SLAVE", "UP", "LOWER_UP"],
    mtu: 9000,
    master: "bond0",
    operstate: "UP",
    address: "52:54:00:12:34:01",
    linkinfo: {
      info_slave_kind: "bond",
      info_slave_data: {
        state: "ACTIVE",
        mii_status: "UP",
        link_failure_count: 0,
        perm_hwaddr: "52:54:00:12:34:01",
        queue_id: 0,
        ad_aggregator_id: 1,
        ad_actor_oper_port_state: 63,
        ad_partner_oper_port_state: 63,
      },
    },
  },
  {
    ifname: "eno2",
    flags: ["NO-CARRIER", "BROADCAST", "MULTICAST", "SLAVE", "UP"],
    mtu: 9000,
    master: "bond0",
    operstate: "DOWN",
    address: "52:54:00:12:34:01",
    linkinfo: {
      info_slave_kind: "bond",
      info_slave_data: { state: "BACKUP", mii_status: "DOWN", ad_aggregator_id: 2 },
    },
  },
  {
    ifname: "bond0",
    flags: ["BROADCAST", "MULTICAST", "MASTER", "UP", "LOWER_UP"],
    mtu: 9000,
    operstate: "UP",
    address: "52:54:00:12:34:01",
    linkinfo: {
      info_kind: "bond",
      info_data: {
        mode: "802.3ad",
        miimon: 100,
        xmit_hash_policy: "layer3+4",
        ad_lacp_rate: "fast",
        ad_info: { aggregator: 1, num_ports: 1, partner_mac: "00:00:00:00:00:00" },
      },
    },
  },
  {
    ifname: "bond1",
    flags: ["BROADCAST", "MULTICAST", "MASTER"],
    mtu: 1500,
    operstate: "DOWN",
    linkinfo: { info_kind: "bond", info_data: { mode: "active-backup", active_slave: "eno3" } },
  },
  {
    ifname: "bond0.40",
    link: "bond0",
    flags: ["BROADCAST", "MULTICAST", "UP", "LOWER_UP"],
    mtu: 9000,
    operstate: "UP",
    linkinfo: {
      info_kind: "vlan",
      info_data: { protocol: "802.1Q", id: 40, flags: ["REORDER_HDR"] },
    },
  },
]);

describe("parseLinks", () => {
  it("reads a veth's state, carrier and MTU, and loopback's", () => {
    expect(parseLinks(VETH_LINKS)).toEqual([
      {
        name: "lo",
        kind: null,
        up: false,
        carrier: false,
        operstate: "DOWN",
        mtu: 65536,
        mac: "00:00:00:00:00:00",
        master: null,
        bond: null,
        bondPort: null,
        vlan: null,
      },
      {
        name: "vcapa",
        kind: "veth",
        up: true,
        carrier: true,
        operstate: "UP",
        mtu: 9000,
        mac: "8a:74:25:8b:46:f6",
        master: null,
        bond: null,
        bondPort: null,
        vlan: null,
      },
    ]);
  });

  it("reads a bond, its ports (master, state, MII, aggregator) and a VLAN on it", () => {
    const links = new Map(parseLinks(BOND_LINKS).map((l) => [l.name, l]));
    expect(links.get("eno1")).toMatchObject({
      carrier: true,
      master: "bond0",
      bondPort: { state: "ACTIVE", miiStatus: "UP", aggregatorId: 1 },
    });
    expect(links.get("eno2")).toMatchObject({
      up: true,
      carrier: false,
      operstate: "DOWN",
      bondPort: { state: "BACKUP", miiStatus: "DOWN", aggregatorId: 2 },
    });
    expect(links.get("bond0")).toMatchObject({
      kind: "bond",
      bond: { mode: "802.3ad", activePort: null },
      bondPort: null,
    });
    expect(links.get("bond1")?.bond).toEqual({ mode: "active-backup", activePort: "eno3" });
    expect(links.get("bond0.40")).toMatchObject({
      kind: "vlan",
      mtu: 9000,
      vlan: { id: 40, link: "bond0" },
    });
  });

  it("reads no output as no link, and refuses what is not a JSON array", () => {
    expect(parseLinks("")).toEqual([]);
    expect(parseLinks('[{"mtu":1500},{"ifname":"x"}]').map((l) => l.name)).toEqual(["x"]);
    expect(() => parseLinks("{}")).toThrow(/not an array/);
  });
});

describe("parseAddresses", () => {
  it("reads IPv4 and IPv6 addresses with their DAD flags", () => {
    const text = `[{"ifindex":2,"link_index":2,"ifname":"vcapa","flags":["BROADCAST","MULTICAST","UP","LOWER_UP"],"mtu":9000,"qdisc":"noqueue","operstate":"UP","group":"default","txqlen":1000,"link_type":"ether","address":"8a:74:25:8b:46:f6","broadcast":"ff:ff:ff:ff:ff:ff","link_netnsid":0,"addr_info":[{"family":"inet","local":"10.9.0.1","prefixlen":24,"broadcast":"10.9.0.255","scope":"global","label":"vcapa","valid_life_time":4294967295,"preferred_life_time":4294967295},{"family":"inet6","local":"fd00:9::1","prefixlen":64,"scope":"global","dadfailed":true,"tentative":true,"valid_life_time":4294967295,"preferred_life_time":4294967295},{"family":"inet6","local":"fe80::8874:25ff:fe8b:46f6","prefixlen":64,"scope":"link","tentative":true,"valid_life_time":4294967295,"preferred_life_time":4294967295},{"family":"inet","local":"10.9.0.77","prefixlen":24,"scope":"global","dynamic":true}]}]`;
    expect(parseAddresses(text)).toEqual([
      {
        name: "vcapa",
        addresses: [
          {
            family: "inet",
            local: "10.9.0.1",
            prefixLength: 24,
            scope: "global",
            tentative: false,
            dadFailed: false,
            dynamic: false,
          },
          {
            family: "inet6",
            local: "fd00:9::1",
            prefixLength: 64,
            scope: "global",
            tentative: true,
            dadFailed: true,
            dynamic: false,
          },
          {
            family: "inet6",
            local: "fe80::8874:25ff:fe8b:46f6",
            prefixLength: 64,
            scope: "link",
            tentative: true,
            dadFailed: false,
            dynamic: false,
          },
          {
            family: "inet",
            local: "10.9.0.77",
            prefixLength: 24,
            scope: "global",
            tentative: false,
            dadFailed: false,
            dynamic: true,
          },
        ],
      },
    ]);
  });

  it("leaves out what it cannot read, and keeps a link without addresses", () => {
    const text = JSON.stringify([
      { ifname: "lo", addr_info: [] },
      { ifname: "eno1", addr_info: [{ family: "packet", local: "x", prefixlen: 0 }, { local: 1 }] },
    ]);
    expect(parseAddresses(text)).toEqual([
      { name: "lo", addresses: [] },
      { name: "eno1", addresses: [] },
    ]);
  });
});

describe("bondOptions", () => {
  it("gives 802.3ad fast LACP, MII monitoring and layer3+4 hashing; active-backup MII only", () => {
    expect(bondOptions("802.3ad")).toEqual([
      "mode",
      "802.3ad",
      "lacp_rate",
      "fast",
      "miimon",
      "100",
      "xmit_hash_policy",
      "layer3+4",
    ]);
    expect(bondOptions("active-backup")).toEqual(["mode", "active-backup", "miimon", "100"]);
  });
});
