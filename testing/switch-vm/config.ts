// What a switch VM is told to be: a top-of-rack switch (its downlinks toward the machine
// under test, bonded or not, VLANs trunked on them, all bridged to an uplink into the
// test's network namespace) or a host at the other end of such links (a bond, a VLAN and
// an address, no bridge). The same initramfs is both; the kernel's command line says which
// (init-script.ts reads it).

/** How the downlinks are aggregated: each its own bridge port, or one Linux bond. */
export type Lag = "none" | "802.3ad" | "active-backup";

export interface PeerConfig {
  /** The prefix of every console line and the VM's name: "switch" by default. */
  readonly name?: string;
  /**
   * "switch" (the default): every downlink's VLAN interface (or the downlink itself when
   * access) and the uplink on one bridge, br0. "host": no bridge; `address` on the bond's
   * (or the one downlink's) VLAN interface, as a machine holds it.
   */
  readonly role?: "switch" | "host";
  /** How many NICs face the machine under test (1 to 8): eth0, eth1, ... */
  readonly downlinks: number;
  /** "802.3ad": an LACP partner (lacp_rate fast, miimon 100). "none" by default. */
  readonly lag?: Lag;
  /**
   * VLAN ids tagged on the downlinks (or on the bond), each bridged untagged to the uplink,
   * so the VLANs meet on the uplink as one segment: give each its own subnet. None (the
   * default): untagged access ports.
   */
  readonly vlans?: readonly number[];
  /** One more NIC, after the downlinks, on the bridge: a tap into the test's namespace. */
  readonly uplink?: boolean;
  /** The MTU of every link, the bond, the VLANs and the bridge: 1500 by default. */
  readonly mtu?: number;
  /**
   * The VM's own address (CIDR), so that it answers pings itself: on br0 for a switch, on
   * the VLAN interface (or the port) for a host.
   */
  readonly address?: string;
}

/** The config with its defaults filled in. */
export type FullPeerConfig = Required<Omit<PeerConfig, "address">> & {
  readonly address: string | undefined;
};

export const MAX_DOWNLINKS = 8;
const NAME = /^[a-z][a-z0-9-]{0,15}$/;
const CIDR = /^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})\/(\d{1,2})$/;

/** `config` with defaults, or a throw naming what is wrong. */
export function fullConfig(config: PeerConfig): FullPeerConfig {
  const full: FullPeerConfig = {
    name: config.name ?? "switch",
    role: config.role ?? "switch",
    downlinks: config.downlinks,
    lag: config.lag ?? "none",
    vlans: [...(config.vlans ?? [])],
    uplink: config.uplink ?? false,
    mtu: config.mtu ?? 1500,
    address: config.address,
  };
  const problem = configProblem(full);
  if (problem) throw new Error(`switch VM ${full.name}: ${problem}`);
  return full;
}

function configProblem(c: FullPeerConfig): string | undefined {
  if (!NAME.test(c.name)) return `name ${c.name} is not a short lowercase word`;
  if (!Number.isInteger(c.downlinks) || c.downlinks < 1 || c.downlinks > MAX_DOWNLINKS)
    return `downlinks ${c.downlinks} is not 1 to ${MAX_DOWNLINKS}`;
  const badVlan = c.vlans.find((v) => !Number.isInteger(v) || v < 1 || v > 4094);
  if (badVlan !== undefined) return `VLAN ${badVlan} is not 1 to 4094`;
  if (new Set(c.vlans).size !== c.vlans.length) return "a VLAN is listed twice";
  if (!Number.isInteger(c.mtu) || c.mtu < 576 || c.mtu > 9216)
    return `MTU ${c.mtu} is not 576 to 9216`;
  if (c.address !== undefined && !validCidr(c.address))
    return `address ${c.address} is not IPv4 CIDR`;
  if (c.role === "host") {
    if (c.uplink) return "a host has no uplink";
    if (c.address === undefined) return "a host needs an address";
    if (c.vlans.length > 1) return "a host carries one VLAN at most";
    if (c.lag === "none" && c.downlinks > 1) return "a host's downlinks are one NIC or a bond";
  }
  return undefined;
}

function validCidr(cidr: string): boolean {
  const m = CIDR.exec(cidr);
  return !!m && m.slice(1, 5).every((o) => Number(o) <= 255) && Number(m[5]) <= 32;
}

/** The kernel command line words that carry `config` to the VM's /init (init-script.ts). */
export function configWords(config: PeerConfig): string[] {
  const c = fullConfig(config);
  return [
    `sw.name=${c.name}`,
    `sw.role=${c.role}`,
    `sw.downlinks=${c.downlinks}`,
    `sw.lag=${c.lag}`,
    `sw.vlans=${c.vlans.join(",")}`,
    `sw.uplink=${c.uplink ? 1 : 0}`,
    `sw.mtu=${c.mtu}`,
    `sw.address=${c.address ?? ""}`,
  ];
}

/** How many NICs the VM has: its downlinks, then the uplink. */
export function nicCount(config: PeerConfig): number {
  const c = fullConfig(config);
  return c.downlinks + (c.uplink ? 1 : 0);
}
