// ip(8), iproute2's: in the release's root and the stick's (docs/image.md), and on the host.
// It renames a NIC to its predictable name and brings a declared port up, builds the
// declared network's bonds, VLANs, MTUs, addresses and routes, and reads the links and
// addresses back as JSON (`-j`), which busybox's ip cannot. A link is renamed while it is
// down, as udev does. Every call names the device with `dev`, so a name that reads like a
// keyword stays a name.
import type { BondMode } from "../common/network-declaration.ts";
import { run } from "./exec.ts";

const TIMEOUT_MS = 10_000;

async function ip(args: readonly string[]): Promise<string> {
  return (await run("ip", args, { timeoutMs: TIMEOUT_MS })).stdout;
}

export async function renameLink(from: string, to: string): Promise<void> {
  await ip(["link", "set", "dev", from, "name", to]);
}

export async function setLinkUp(name: string): Promise<void> {
  await ip(["link", "set", "dev", name, "up"]);
}

export async function setLinkDown(name: string): Promise<void> {
  await ip(["link", "set", "dev", name, "down"]);
}

/**
 * The bond's options by mode: miimon 100 notices a lost link within 0.1 s. 802.3ad asks
 * the partner for an LACPDU every second (lacp_rate fast), so a dead partner is seen in 3 s,
 * and spreads flows by addresses and ports (layer3+4), which suits many flows to a few
 * peers; with no partner each port is its own aggregator and the bond sends on one.
 */
export function bondOptions(mode: BondMode): string[] {
  return mode === "802.3ad"
    ? ["mode", "802.3ad", "lacp_rate", "fast", "miimon", "100", "xmit_hash_policy", "layer3+4"]
    : ["mode", "active-backup", "miimon", "100"];
}

/** A new bond (the bonding driver): down, without ports. */
export async function addBond(name: string, mode: BondMode): Promise<void> {
  await ip(["link", "add", "dev", name, "type", "bond", ...bondOptions(mode)]);
}

/** An existing bond's mode and options: the kernel takes a mode only while it is down and empty. */
export async function setBondOptions(name: string, mode: BondMode): Promise<void> {
  await ip(["link", "set", "dev", name, "type", "bond", ...bondOptions(mode)]);
}

/** `port` into `bond`. The kernel refuses a port that is up: it is taken down first. */
export async function enslave(port: string, bond: string): Promise<void> {
  await setLinkDown(port);
  await ip(["link", "set", "dev", port, "master", bond]);
}

/** A new 802.1Q VLAN `name` with `id` on `link` (the 8021q driver), down. */
export async function addVlan(name: string, link: string, id: number): Promise<void> {
  await ip(["link", "add", "link", link, "name", name, "type", "vlan", "id", String(id)]);
}

export async function setMtu(name: string, mtu: number): Promise<void> {
  await ip(["link", "set", "dev", name, "mtu", String(mtu)]);
}

/** A static address in CIDR form; an IPv4 one with its subnet's broadcast address. */
export async function addAddress(name: string, cidr: string): Promise<void> {
  const broadcast = cidr.includes(":") ? [] : ["broadcast", "+"];
  await ip(["address", "add", cidr, ...broadcast, "dev", name]);
}

/** A route to `to` (a CIDR; `0.0.0.0/0` or `::/0` is the default route) through `via` on `name`. */
export async function addRoute(name: string, to: string, via: string): Promise<void> {
  await ip([
    to.includes(":") || via.includes(":") ? "-6" : "-4",
    "route",
    "add",
    to,
    "via",
    via,
    "dev",
    name,
  ]);
}

/** Joins a link-layer multicast group (a NIC drops groups nobody joined). */
export async function joinMulticast(name: string, mac: string): Promise<void> {
  await ip(["maddress", "add", mac, "dev", name]);
}

/** Leaves a group joined with joinMulticast; the kernel counts joins. */
export async function leaveMulticast(name: string, mac: string): Promise<void> {
  await ip(["maddress", "delete", mac, "dev", name]);
}

/** The way to `address` the kernel would take (`ip -j route get`): the interface and its source address. */
export interface RouteTo {
  readonly dev: string;
  /** The address packets leave from; null when the kernel names none. */
  readonly src: string | null;
}

/** Throws when the kernel has no route to `address` ("Network is unreachable"). */
export async function routeTo(address: string): Promise<RouteTo> {
  return parseRouteTo(await ip(["-j", "route", "get", address]));
}

export function parseRouteTo(text: string): RouteTo {
  const route = obj(jsonArray(text)[0]);
  const dev = str(route?.dev);
  if (!dev) throw new Error("ip -j route get named no interface");
  return { dev, src: str(route?.prefsrc) };
}

/** A link as `ip -j -d link show` describes it. */
export interface IpLink {
  readonly name: string;
  /** `bond`, `vlan`, `veth`, ...; null for a NIC's own link. */
  readonly kind: string | null;
  /** Administratively up (`ip link set up`). */
  readonly up: boolean;
  /** The link below has a signal (LOWER_UP): a NIC's carrier, a bond's port with one. */
  readonly carrier: boolean;
  /** The kernel's RFC 2863 state: `UP`, `DOWN`, `LOWERLAYERDOWN`, `UNKNOWN`, ... */
  readonly operstate: string;
  readonly mtu: number;
  readonly mac: string | null;
  /** The bond (or bridge) this link is a port of. */
  readonly master: string | null;
  readonly bond: { readonly mode: string; readonly activePort: string | null } | null;
  /** As a bond's port: ACTIVE or BACKUP, its MII status, its 802.3ad aggregator. */
  readonly bondPort: {
    readonly state: string | null;
    readonly miiStatus: string | null;
    readonly aggregatorId: number | null;
  } | null;
  readonly vlan: { readonly id: number; readonly link: string | null } | null;
}

export async function listLinks(): Promise<IpLink[]> {
  return parseLinks(await ip(["-j", "-d", "link", "show"]));
}

type Json = Record<string, unknown>;

const obj = (v: unknown): Json | null =>
  typeof v === "object" && v !== null && !Array.isArray(v) ? (v as Json) : null;
const str = (v: unknown): string | null => (typeof v === "string" ? v : null);
const num = (v: unknown): number | null => (typeof v === "number" ? v : null);

function jsonArray(text: string): unknown[] {
  // ip prints nothing at all when a filter matched no link.
  const value: unknown = text.trim() === "" ? [] : JSON.parse(text);
  if (!Array.isArray(value)) throw new Error("ip -j printed JSON that is not an array");
  return value;
}

/** `ip -j -d link show`'s output as links; an entry without a name is left out. */
export function parseLinks(text: string): IpLink[] {
  return jsonArray(text).flatMap((entry): IpLink[] => {
    const e = obj(entry);
    const name = str(e?.ifname);
    if (!e || name === null) return [];
    const flags = Array.isArray(e.flags) ? e.flags.filter((f) => typeof f === "string") : [];
    const info = obj(e.linkinfo);
    const kind = str(info?.info_kind);
    const data = obj(info?.info_data);
    const slave = str(info?.info_slave_kind) === "bond" ? obj(info?.info_slave_data) : null;
    return [
      {
        name,
        kind,
        up: flags.includes("UP"),
        carrier: flags.includes("LOWER_UP"),
        operstate: str(e.operstate) ?? "UNKNOWN",
        mtu: num(e.mtu) ?? 0,
        mac: str(e.address),
        master: str(e.master),
        bond:
          kind === "bond"
            ? { mode: str(data?.mode) ?? "unknown", activePort: str(data?.active_slave) }
            : null,
        bondPort: slave && {
          state: str(slave.state),
          miiStatus: str(slave.mii_status),
          aggregatorId: num(slave.ad_aggregator_id),
        },
        vlan: kind === "vlan" ? { id: num(data?.id) ?? 0, link: str(e.link) } : null,
      },
    ];
  });
}

/** An address as `ip -j address show` describes it. */
export interface IpAddress {
  readonly family: "inet" | "inet6";
  /** The address itself, as the kernel prints it. */
  readonly local: string;
  readonly prefixLength: number;
  readonly scope: string;
  /** IPv6: duplicate address detection has not finished; the address is not used yet. */
  readonly tentative: boolean;
  /** IPv6: another host answered for it; the kernel will not use it. */
  readonly dadFailed: boolean;
  /** It expires unless renewed (a lease, a router advertisement). */
  readonly dynamic: boolean;
}

export interface IpLinkAddresses {
  readonly name: string;
  readonly addresses: readonly IpAddress[];
}

export async function listAddresses(): Promise<IpLinkAddresses[]> {
  return parseAddresses(await ip(["-j", "address", "show"]));
}

/** `ip -j address show`'s output, each link's addresses in the kernel's order. */
export function parseAddresses(text: string): IpLinkAddresses[] {
  return jsonArray(text).flatMap((entry): IpLinkAddresses[] => {
    const e = obj(entry);
    const name = str(e?.ifname);
    if (!e || name === null) return [];
    const infos = Array.isArray(e.addr_info) ? e.addr_info : [];
    const addresses = infos.flatMap((a): IpAddress[] => {
      const x = obj(a);
      const family = str(x?.family);
      const local = str(x?.local);
      const prefixLength = num(x?.prefixlen);
      if (!x || (family !== "inet" && family !== "inet6") || !local || prefixLength === null)
        return [];
      return [
        {
          family,
          local,
          prefixLength,
          scope: str(x.scope) ?? "global",
          tentative: x.tentative === true,
          dadFailed: x.dadfailed === true,
          dynamic: x.dynamic === true,
        },
      ];
    });
    return [{ name, addresses }];
  });
}

// iproute2's ip on the host: the network namespaces the netboot tests boot machines in.

/** A network namespace holding a bridge with `cidr` (10.77.0.1/24), its loopback up. */
export async function addBridgedNamespace(ns: string, bridge: string, cidr: string): Promise<void> {
  await ip(["netns", "add", ns]);
  const inNs = (...args: string[]) => ip(["-n", ns, ...args]);
  await inNs("link", "set", "lo", "up");
  await inNs("link", "add", bridge, "type", "bridge");
  await inNs("addr", "add", cidr, "dev", bridge);
  await inNs("link", "set", bridge, "up");
}

/** Deletes the namespace; its bridge and any tap moved into it go with it. */
export async function deleteNamespace(ns: string): Promise<void> {
  await ip(["netns", "delete", ns]);
}

/**
 * The shell script QEMU runs with a new tap's name (-netdev tap,script=): moves the tap
 * into `ns` and onto `bridge`. QEMU's file descriptor follows the device.
 */
export function tapIntoNamespaceScript(ns: string, bridge: string): string {
  return `#!/bin/sh\nset -e\nip link set dev "$1" netns ${ns}\nip -n ${ns} link set dev "$1" master ${bridge} up\n`;
}

/** The argument array that runs `command` inside `ns` (ip netns exec). */
export function inNamespace(ns: string, command: string, args: readonly string[]): string[] {
  return ["netns", "exec", ns, command, ...args];
}
