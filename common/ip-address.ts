// IP addresses and prefixes as numbers: the manifest checks the declared networks with
// them, and the machine that applies a network picks a route's interface with them. Node
// says whether text is an address (node:net); the arithmetic is here, IPv6 as a BigInt.
import { isIPv4, isIPv6 } from "node:net";

export type IpFamily = 4 | 6;

export interface IpAddress {
  readonly family: IpFamily;
  /** The address as one unsigned number of 32 or 128 bits. */
  readonly value: bigint;
}

/** An address with a prefix length: `10.0.40.11/24` (a host in a subnet) or `10.0.40.0/24`. */
export interface Cidr {
  readonly address: IpAddress;
  readonly prefix: number;
}

export function familyBits(family: IpFamily): 32 | 128 {
  return family === 4 ? 32 : 128;
}

export function familyName(family: IpFamily): "IPv4" | "IPv6" {
  return family === 4 ? "IPv4" : "IPv6";
}

/**
 * The address that `text` is, without a prefix, or undefined. A zone (`fe80::1%eth0`) is
 * refused: it names an interface of one machine, which a declaration says elsewhere.
 */
export function parseAddress(text: string): IpAddress | undefined {
  if (isIPv4(text)) return { family: 4, value: ipv4Value(text) };
  if (isIPv6(text) && !text.includes("%")) return { family: 6, value: ipv6Value(text) };
  return undefined;
}

/** `ADDRESS/PREFIX` with a prefix of 0 to 32 (IPv4) or 0 to 128 (IPv6) in decimal, or undefined. */
export function parseCidr(text: string): Cidr | undefined {
  const slash = text.lastIndexOf("/");
  if (slash < 0) return undefined;
  const address = parseAddress(text.slice(0, slash));
  const digits = text.slice(slash + 1);
  if (address === undefined || !/^(0|[1-9][0-9]{0,2})$/.test(digits)) return undefined;
  const prefix = Number(digits);
  return prefix <= familyBits(address.family) ? { address, prefix } : undefined;
}

/** The address in one spelling: IPv4 dotted, IPv6 as RFC 5952 writes it (`fd00:0::1` is `fd00::1`). */
export function formatAddress(address: IpAddress): string {
  return address.family === 4 ? formatIpv4(address.value) : formatIpv6(address.value);
}

export function formatCidr(cidr: Cidr): string {
  return `${formatAddress(cidr.address)}/${cidr.prefix}`;
}

/**
 * An address or a CIDR in its one spelling, so two ways of writing it compare equal;
 * undefined when `text` is neither.
 */
export function canonicalAddress(text: string): string | undefined {
  if (text.includes("/")) {
    const cidr = parseCidr(text);
    return cidr === undefined ? undefined : formatCidr(cidr);
  }
  const address = parseAddress(text);
  return address === undefined ? undefined : formatAddress(address);
}

/** The subnet a CIDR lies in: its host bits zero (`10.0.40.11/24` is in `10.0.40.0/24`). */
export function networkOf(cidr: Cidr): Cidr {
  const value = cidr.address.value & prefixMask(cidr.address.family, cidr.prefix);
  return { address: { family: cidr.address.family, value }, prefix: cidr.prefix };
}

/** Whether the CIDR names a subnet itself, with no host bits set (`10.0.0.0/8`, not `10.0.0.1/8`). */
export function isNetworkAddress(cidr: Cidr): boolean {
  return networkOf(cidr).address.value === cidr.address.value;
}

/** Whether `address` lies inside `subnet`'s prefix; addresses of another family never do. */
export function inSubnet(address: IpAddress | string, subnet: Cidr | string): boolean {
  const a = typeof address === "string" ? parseAddress(address) : address;
  const s = typeof subnet === "string" ? parseCidr(subnet) : subnet;
  if (a === undefined || s === undefined || a.family !== s.address.family) return false;
  const mask = prefixMask(a.family, s.prefix);
  return (a.value & mask) === (s.address.value & mask);
}

/** `0.0.0.0/0` or `::/0` (any spelling): the route every address takes when no other does. */
export function isDefaultRoute(to: Cidr | string): boolean {
  const cidr = typeof to === "string" ? parseCidr(to) : to;
  return cidr !== undefined && cidr.prefix === 0;
}

/**
 * Why the address of `cidr` cannot be one interface's own address, or undefined: the
 * unspecified, loopback and multicast addresses, an IPv4-mapped IPv6 address, and the
 * network and broadcast addresses of an IPv4 subnet that has them (prefixes below /31).
 */
export function hostAddressProblem(cidr: Cidr): string | undefined {
  const special = specialAddressProblem(cidr.address);
  if (special !== undefined) return special;
  if (cidr.address.family !== 4 || cidr.prefix >= 31) return undefined;
  const network = networkOf(cidr);
  const subnet = formatCidr(network);
  if (cidr.address.value === network.address.value) return `is the network address of ${subnet}`;
  const broadcast = network.address.value | (~prefixMask(4, cidr.prefix) & 0xffffffffn);
  if (cidr.address.value === broadcast) return `is the broadcast address of ${subnet}`;
  return undefined;
}

/** Why `address` names no single host anywhere (unspecified, loopback, multicast, IPv4-mapped). */
export function specialAddressProblem(address: IpAddress): string | undefined {
  const { family, value } = address;
  if (value === 0n) return "is the unspecified address";
  if (family === 4) {
    if (value >> 24n === 127n) return "is a loopback address";
    if (value >> 28n === 0xen) return "is a multicast address";
    return undefined;
  }
  if (value === 1n) return "is the loopback address";
  if (value >> 120n === 0xffn) return "is a multicast address";
  if (value >> 32n === 0xffffn) return "is an IPv4-mapped address";
  return undefined;
}

function prefixMask(family: IpFamily, prefix: number): bigint {
  const bits = BigInt(familyBits(family));
  const all = (1n << bits) - 1n;
  return (all << (bits - BigInt(prefix))) & all;
}

function ipv4Value(text: string): bigint {
  return text.split(".").reduce((value, octet) => (value << 8n) | BigInt(Number(octet)), 0n);
}

/** Eight 16-bit groups; `::` stands for the zero groups it leaves out, a dotted tail for two. */
function ipv6Value(text: string): bigint {
  const [head = "", tail] = text.split("::");
  const groups = (part: string): bigint[] =>
    part === ""
      ? []
      : part.split(":").flatMap((g) => (g.includes(".") ? dottedGroups(g) : [hex(g)]));
  const front = groups(head);
  const back = tail === undefined ? [] : groups(tail);
  const zeros = Array<bigint>(8 - front.length - back.length).fill(0n);
  return [...front, ...zeros, ...back].reduce((value, group) => (value << 16n) | group, 0n);
}

function dottedGroups(dotted: string): bigint[] {
  const value = ipv4Value(dotted);
  return [value >> 16n, value & 0xffffn];
}

function hex(group: string): bigint {
  return BigInt(`0x${group}`);
}

function formatIpv4(value: bigint): string {
  return [24n, 16n, 8n, 0n].map((shift) => String((value >> shift) & 0xffn)).join(".");
}

function formatIpv6(value: bigint): string {
  if (value >> 32n === 0xffffn) return `::ffff:${formatIpv4(value & 0xffffffffn)}`;
  const groups = Array.from({ length: 8 }, (_, i) => (value >> BigInt(112 - 16 * i)) & 0xffffn);
  const run = longestZeroRun(groups);
  const text = groups.map((g) => g.toString(16));
  if (run.length < 2) return text.join(":");
  return `${text.slice(0, run.start).join(":")}::${text.slice(run.start + run.length).join(":")}`;
}

/** RFC 5952: the longest run of zero groups, the first of equal ones, is the one `::` replaces. */
function longestZeroRun(groups: readonly bigint[]): { start: number; length: number } {
  let best = { start: 0, length: 0 };
  let start = -1;
  groups.forEach((group, i) => {
    if (group !== 0n) {
      start = -1;
      return;
    }
    if (start < 0) start = i;
    const length = i - start + 1;
    if (length > best.length) best = { start, length };
  });
  return best;
}
