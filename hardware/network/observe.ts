// The declared network as the machine holds it, read back after the plan ran: each declared
// interface's state, MTU and addresses from ip's JSON, and each bond's ports from the
// bonding driver's own account (/proc/net/bonding). networkStatus() is what the status
// document keeps of it (formats/machine-status.ts, status.network).
import type { BondMode, InterfaceKind } from "../../common/network-declaration.ts";
import type { NetworkStatus } from "../../formats/machine-status.ts";
import { type IpLink, type IpLinkAddresses, listAddresses, listLinks } from "../../tools/ip.ts";
import { type Bonding, readBonding } from "../bonding.ts";
import type { NetworkPlan } from "./plan.ts";

export interface ObservedMember {
  readonly name: string;
  /** The port exists on this machine. */
  readonly present: boolean;
  /** It is a port of this bond now. */
  readonly joined: boolean;
  readonly carrier: boolean;
  /** It carries the bond's traffic: the active port, or a port of the active aggregator. */
  readonly active: boolean;
  /** 802.3ad: an LACP partner answers on it; null in active-backup. */
  readonly partner: boolean | null;
}

export interface ObservedAddress {
  /** `10.0.40.11/24`, as the kernel spells it. */
  readonly cidr: string;
  readonly tentative: boolean;
  readonly dadFailed: boolean;
}

export interface ObservedInterface {
  readonly name: string;
  readonly kind: InterfaceKind;
  readonly state: "up" | "down" | "missing";
  readonly carrier: boolean;
  readonly mtu: number | null;
  /** Its global addresses (link-local ones left out), in the kernel's order. */
  readonly addresses: readonly ObservedAddress[];
  readonly dhcp: boolean;
  readonly bond: {
    readonly mode: BondMode;
    /** 802.3ad: the active aggregator has an LACP partner; null in active-backup. */
    readonly partner: boolean | null;
    readonly members: readonly ObservedMember[];
  } | null;
}

export interface ObservedNetwork {
  readonly interfaces: readonly ObservedInterface[];
  readonly nameservers: readonly string[];
}

/** Reads every declared interface back: links, addresses, and each bond's account. */
export async function observeNetwork(plan: NetworkPlan): Promise<ObservedNetwork> {
  const [links, addresses] = await Promise.all([listLinks(), listAddresses()]);
  const bonds = new Map<string, Bonding | null>();
  for (const i of plan.interfaces)
    if (i.kind === "bond") bonds.set(i.declared.name, await readBonding(i.declared.name));
  return observed(plan, links, addresses, bonds);
}

/** What `links`, `addresses` and the bonds' accounts say of the plan's interfaces. Pure. */
export function observed(
  plan: NetworkPlan,
  links: readonly IpLink[],
  addresses: readonly IpLinkAddresses[],
  bonds: ReadonlyMap<string, Bonding | null>,
): ObservedNetwork {
  const link = new Map(links.map((l) => [l.name, l]));
  const held = new Map(addresses.map((a) => [a.name, a.addresses]));
  const interfaces = plan.interfaces.map((i): ObservedInterface => {
    const { name, bond, dhcp } = i.declared;
    const l = link.get(name);
    return {
      name,
      kind: i.kind,
      state: !l ? "missing" : l.up && l.carrier ? "up" : "down",
      carrier: l?.carrier ?? false,
      mtu: l?.mtu ?? null,
      addresses: l
        ? (held.get(name) ?? [])
            .filter((a) => a.scope !== "link" && a.scope !== "host")
            .map((a) => ({
              cidr: `${a.local}/${a.prefixLength}`,
              tentative: a.tentative,
              dadFailed: a.dadFailed,
            }))
        : [],
      dhcp,
      bond: bond
        ? {
            mode: bond.mode,
            partner:
              bond.mode === "802.3ad" ? (bonds.get(name)?.partnerMac ?? null) !== null : null,
            members: bond.ports.map((p) =>
              member(p, name, bond.mode, link.get(p), bonds.get(name) ?? null),
            ),
          }
        : null,
    };
  });
  return { interfaces, nameservers: plan.nameservers };
}

function member(
  name: string,
  bondName: string,
  mode: BondMode,
  link: IpLink | undefined,
  bond: Bonding | null,
): ObservedMember {
  const joined = link?.master === bondName;
  const port = joined ? bond?.ports.find((p) => p.name === name) : undefined;
  const carrier = link?.carrier ?? false;
  // Without the driver's account, ip's view of the port: ACTIVE is a port that sends.
  const active = !joined
    ? false
    : port && bond
      ? port.miiStatus === "up" &&
        (mode === "802.3ad"
          ? port.aggregatorId !== null && port.aggregatorId === bond.activeAggregatorId
          : bond.activePort === name)
      : carrier && link?.bondPort?.state === "ACTIVE";
  return {
    name,
    present: link !== undefined,
    joined,
    carrier,
    active,
    partner: mode === "802.3ad" ? (port?.partnerMac ?? null) !== null : null,
  };
}

/** status.network: what the machine holds of each declared interface. */
export function networkStatus(network: ObservedNetwork): NetworkStatus {
  return {
    interfaces: network.interfaces.map((i) => ({
      name: i.name,
      kind: i.kind,
      state: i.state,
      mtu: i.mtu,
      addresses: i.addresses.filter((a) => !a.dadFailed).map((a) => a.cidr),
      dhcp: i.dhcp,
      ...(i.bond && {
        bond: {
          mode: i.bond.mode,
          members: i.bond.members.map((m) => ({
            name: m.name,
            carrier: m.carrier,
            active: m.active,
          })),
        },
      }),
    })),
    nameservers: network.nameservers,
  };
}
