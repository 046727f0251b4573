// The machine read back: which bond ports carry traffic (from the bonding driver's account),
// the interfaces' states and addresses, and what status.network keeps of them.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import type { IpAddress, IpLink } from "../../tools/ip.ts";
import { type Bonding, parseBonding } from "../bonding.ts";
import { ISSUE_EXAMPLE } from "./fixtures/declarations.ts";
import { networkStatus, observed } from "./observe.ts";
import { planNetwork } from "./plan.ts";

const bonding = (name: string): Bonding =>
  parseBonding(readFileSync(join(import.meta.dirname, "../fixtures/bonding", name), "utf8"))!;

const link = (name: string, over: Partial<IpLink> = {}): IpLink => ({
  name,
  kind: null,
  up: true,
  carrier: true,
  operstate: "UP",
  mtu: 9000,
  mac: null,
  master: null,
  bond: null,
  bondPort: null,
  vlan: null,
  ...over,
});

const address = (
  local: string,
  prefixLength: number,
  over: Partial<IpAddress> = {},
): IpAddress => ({
  family: local.includes(":") ? "inet6" : "inet",
  local,
  prefixLength,
  scope: "global",
  tentative: false,
  dadFailed: false,
  dynamic: false,
  ...over,
});

const plan = planNetwork(
  ISSUE_EXAMPLE,
  ["eno1", "eno2", "eno3"].map((name) => ({ name, carrier: true })),
);

const machine = (eno2: Partial<IpLink>, bond: Bonding) =>
  observed(
    plan,
    [
      link("eno1", { master: "bond0" }),
      link("eno2", { master: "bond0", ...eno2 }),
      link("bond0", { kind: "bond", bond: { mode: "802.3ad", activePort: null } }),
      link("bond0.40", { kind: "vlan", vlan: { id: 40, link: "bond0" } }),
      link("eno3", { mtu: 1500 }),
    ],
    [
      {
        name: "bond0.40",
        addresses: [
          address("10.0.40.11", 24),
          address("fd00:40::11", 64, { tentative: true, dadFailed: true }),
          address("fe80::1", 64, { scope: "link" }),
        ],
      },
      { name: "eno3", addresses: [address("10.0.7.20", 24, { dynamic: true })] },
    ],
    new Map([["bond0", bond]]),
  );

describe("observed", () => {
  it("reads an aggregated 802.3ad bond: both ports carry traffic with a partner", () => {
    const network = machine({}, bonding("802.3ad-aggregated.txt"));
    expect(network.interfaces[0]).toEqual({
      name: "bond0",
      kind: "bond",
      state: "up",
      carrier: true,
      mtu: 9000,
      addresses: [],
      dhcp: false,
      bond: {
        mode: "802.3ad",
        partner: true,
        members: [
          { name: "eno1", present: true, joined: true, carrier: true, active: true, partner: true },
          { name: "eno2", present: true, joined: true, carrier: true, active: true, partner: true },
        ],
      },
    });
  });

  it("reads a port outside the active aggregator as carrying nothing, without a partner", () => {
    const network = machine({}, bonding("802.3ad-no-partner.txt"));
    expect(network.interfaces[0]?.bond).toMatchObject({
      partner: false,
      members: [
        { name: "eno1", active: true, partner: false },
        { name: "eno2", active: false, partner: false },
      ],
    });
  });

  it("reads a port that has no carrier, or did not join, as carrying nothing", () => {
    const dark = machine({ carrier: false }, bonding("802.3ad-aggregated.txt"));
    expect(dark.interfaces[0]?.bond?.members[1]).toMatchObject({ carrier: false, joined: true });
    const apart = machine({ master: null }, bonding("802.3ad-aggregated.txt"));
    expect(apart.interfaces[0]?.bond?.members[1]).toMatchObject({ joined: false, active: false });
  });

  it("keeps global addresses with their DAD flags, and reads a missing interface", () => {
    const network = observed(plan, [link("eno3", { up: true, carrier: false })], [], new Map());
    expect(network.interfaces.map((i) => [i.name, i.state, i.mtu])).toEqual([
      ["bond0", "missing", null],
      ["bond0.40", "missing", null],
      ["eno3", "down", 9000],
    ]);
    const held = machine({}, bonding("802.3ad-aggregated.txt")).interfaces[1]?.addresses;
    expect(held).toEqual([
      { cidr: "10.0.40.11/24", tentative: false, dadFailed: false },
      { cidr: "fd00:40::11/64", tentative: true, dadFailed: true },
    ]);
  });
});

describe("networkStatus", () => {
  it("is status.network: states, MTUs, usable addresses, DHCP, and each bond's ports", () => {
    expect(networkStatus(machine({}, bonding("802.3ad-no-partner.txt")))).toEqual({
      interfaces: [
        {
          name: "bond0",
          kind: "bond",
          state: "up",
          mtu: 9000,
          addresses: [],
          dhcp: false,
          bond: {
            mode: "802.3ad",
            members: [
              { name: "eno1", carrier: true, active: true },
              { name: "eno2", carrier: true, active: false },
            ],
          },
        },
        {
          name: "bond0.40",
          kind: "vlan",
          state: "up",
          mtu: 9000,
          addresses: ["10.0.40.11/24"],
          dhcp: false,
        },
        {
          name: "eno3",
          kind: "port",
          state: "up",
          mtu: 1500,
          addresses: ["10.0.7.20/24"],
          dhcp: true,
        },
      ],
      nameservers: ["10.0.40.2"],
    });
  });
});
