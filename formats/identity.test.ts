// The boot agent reads identity.json of any install: fields it does not find read as the
// defaults, so an older install boots as before.
import { describe, expect, it } from "vitest";
import { NO_NETWORK } from "../common/network-declaration.ts";
import { parseBootIdentity, readNetworkDeclaration } from "./identity.ts";

/** Issue 41's example as the installer writes it into identity.json. */
const NETWORK = {
  interfaces: [
    {
      name: "bond0",
      bond: { ports: ["eno1", "eno2"], mode: "802.3ad" },
      mtu: 9000,
      addresses: [],
      routes: [],
      dhcp: false,
    },
    {
      name: "bond0.40",
      vlan: { link: "bond0", id: 40 },
      addresses: ["10.0.40.11/24", "fd00:40::11/64"],
      routes: [{ to: "0.0.0.0/0", via: "10.0.40.1" }],
      dhcp: false,
    },
    { name: "eno3", addresses: [], routes: [], dhcp: true },
  ],
  nameservers: ["10.0.40.2"],
};

/** A disk's five PARTUUIDs by GPT name; upper case as another tool might write them. */
function uuids(disk: string, upper = false): Record<string, string> {
  const labels = ["liken-esp", "liken-a", "liken-b", "liken-journal", "liken-state"];
  const uuid = (n: number) => `${disk}abcdef0-0000-4000-8000-00000000000${n}`;
  return Object.fromEntries(labels.map((l, n) => [l, upper ? uuid(n).toUpperCase() : uuid(n)]));
}

/** Listed out of order, with a WWN on one and not the other. */
const MIRROR = {
  members: [
    { member: 2, serial: "S2", path: "/dev/vdb", partUuids: uuids("2", true) },
    { member: 1, serial: "S1", wwn: "0x5000c500a1b2c3d4", path: "/dev/vda", partUuids: uuids("1") },
  ],
};

describe("parseBootIdentity", () => {
  it("reads the ports, modules and reboot policy the installer wrote", () => {
    const text = JSON.stringify({
      installId: "id-1",
      rebootPolicy: "Automatic",
      ports: ["eno1"],
      modules: [{ name: "ixgbe", parameters: "allow_unsupported_sfp=1" }],
      network: NETWORK,
      storage: [{ role: "data", label: "liken-data" }, { role: 3 }],
    });
    expect(parseBootIdentity(text)).toEqual({
      installId: "id-1",
      rebootPolicy: "Automatic",
      ports: ["eno1"],
      modules: [{ name: "ixgbe", parameters: "allow_unsupported_sfp=1" }],
      network: NETWORK,
      networkError: null,
      machine: null,
      mirror: null,
      mirrorError: null,
      storage: [{ role: "data", label: "liken-data" }],
    });
  });

  it("reads an install without modules, or no file at all, as the defaults", () => {
    const defaults = {
      installId: null,
      rebootPolicy: "Manual",
      ports: [],
      modules: [],
      network: NO_NETWORK,
      networkError: null,
      machine: null,
      mirror: null,
      mirrorError: null,
      storage: [],
    };
    expect(parseBootIdentity(null)).toEqual(defaults);
    expect(parseBootIdentity("{not json")).toEqual(defaults);
    expect(parseBootIdentity(JSON.stringify({ ports: "eno1", modules: [{ name: 1 }] }))).toEqual(
      defaults,
    );
  });

  it("reads a mirrored install's two members, their PARTUUIDs in lower case", () => {
    const read = parseBootIdentity(JSON.stringify({ machine: "leader-1", mirror: MIRROR }));
    expect(read).toMatchObject({ machine: "leader-1", mirrorError: null });
    expect(read.mirror).toEqual([
      { ...MIRROR.members[1], partUuids: uuids("1") },
      { ...MIRROR.members[0], partUuids: uuids("2") },
    ]);
  });

  it("keeps the members that read of a mirror that does not read whole, and says why", () => {
    const [two, one] = MIRROR.members;
    const read = (mirror: unknown) => parseBootIdentity(JSON.stringify({ mirror }));
    expect(read({ members: [one, { ...two, partUuids: { "liken-esp": "x" } }] })).toMatchObject({
      mirror: [{ member: 1, serial: "S1" }],
      mirrorError: "mirror.members[1].partUuids has no liken-a",
    });
    expect(read({ members: [one, { ...two, member: 1 }] })).toMatchObject({
      mirror: [{ member: 1 }],
      mirrorError: "mirror.members names member 1 twice",
    });
    expect(read({ members: [one] }).mirrorError).toBe("mirror.members holds 1 members, not 2");
    expect(read("yes")).toMatchObject({ mirror: [], mirrorError: "mirror.members is not a list" });
    expect(read({ members: [one, { ...two, member: "2" }] }).mirrorError).toBe(
      "mirror.members[1].member is not 1 or 2",
    );
  });

  it("reads a network that does not read as none, and says why", () => {
    const read = (network: unknown) => parseBootIdentity(JSON.stringify({ network }));
    const cases: [unknown, string][] = [
      [[], "network is not an object"],
      [{ interfaces: {}, nameservers: [] }, "network.interfaces is not a list"],
      [
        { interfaces: [], nameservers: ["10.0.0.53; rm"] },
        'network.nameservers holds "10.0.0.53; rm"',
      ],
      [
        { ...NETWORK, interfaces: [{ name: "-x", addresses: [], routes: [], dhcp: false }] },
        "network.interfaces[0].name is not an interface name",
      ],
      [
        {
          ...NETWORK,
          interfaces: [{ name: "eno1", addresses: ["10.0.0.1"], routes: [], dhcp: false }],
        },
        'network.interfaces[0].addresses holds "10.0.0.1"',
      ],
      [
        { ...NETWORK, interfaces: [{ name: "eno1", addresses: [], routes: [], dhcp: "yes" }] },
        "network.interfaces[0].dhcp is not true or false",
      ],
      [
        {
          ...NETWORK,
          interfaces: [
            {
              name: "eno1",
              addresses: [],
              routes: [{ to: "default", via: "10.0.0.1" }],
              dhcp: false,
            },
          ],
        },
        "network.interfaces[0].routes has a route without a CIDR `to`",
      ],
      [
        {
          ...NETWORK,
          interfaces: [
            {
              name: "b",
              bond: { ports: ["eno1"], mode: "xor" },
              addresses: [],
              routes: [],
              dhcp: false,
            },
          ],
        },
        "network.interfaces[0].bond.mode is not 802.3ad or active-backup",
      ],
      [
        {
          ...NETWORK,
          interfaces: [
            { name: "v", vlan: { link: "eno1", id: 4095 }, addresses: [], routes: [], dhcp: false },
          ],
        },
        "network.interfaces[0].vlan.id is not 1 to 4094",
      ],
      [
        {
          ...NETWORK,
          interfaces: [
            NETWORK.interfaces[2],
            { name: "x", mtu: 9000.5, addresses: [], routes: [], dhcp: false },
          ],
        },
        "network.interfaces[1].mtu is not an MTU",
      ],
    ];
    for (const [network, error] of cases)
      expect(read(network), error).toMatchObject({ network: NO_NETWORK, networkError: error });
    // Absent, as an older install wrote it: none, and nothing to say.
    expect(parseBootIdentity(JSON.stringify({ ports: ["eno1"] }))).toMatchObject({
      network: NO_NETWORK,
      networkError: null,
    });
  });
});

describe("readNetworkDeclaration, for inspect", () => {
  it("reads a whole network with no errors", () => {
    expect(readNetworkDeclaration(NETWORK)).toEqual({ network: NETWORK, errors: [] });
  });

  it("keeps what reads beside what does not, and says why each part does not", () => {
    const [bond, vlan, port] = NETWORK.interfaces;
    const damaged = {
      interfaces: [bond, { ...vlan, vlan: { link: "bond0", id: 0 } }, port, "eno4"],
      nameservers: ["10.0.40.2", 53, "fd00:40::2"],
    };
    expect(readNetworkDeclaration(damaged)).toEqual({
      network: { interfaces: [bond, port], nameservers: ["10.0.40.2", "fd00:40::2"] },
      errors: [
        "network.nameservers holds 53",
        "network.interfaces[1].vlan.id is not 1 to 4094",
        "network.interfaces[3] is not an object",
      ],
    });
    // The boot agent applies none of it, and says the first reason.
    expect(parseBootIdentity(JSON.stringify({ network: damaged }))).toMatchObject({
      network: NO_NETWORK,
      networkError: "network.nameservers holds 53",
    });
  });

  it("reads a network that is not an object, or has no list of interfaces, as none", () => {
    expect(readNetworkDeclaration(null)).toEqual({
      network: NO_NETWORK,
      errors: ["network is not an object"],
    });
    expect(readNetworkDeclaration({ nameservers: ["10.0.40.2"] })).toEqual({
      network: { interfaces: [], nameservers: ["10.0.40.2"] },
      errors: ["network.interfaces is not a list"],
    });
  });
});
