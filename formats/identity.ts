// identity.json on the state partition: who the installed machine is, written once by the
// installer from the manifest, read by the boot agent at every boot (its reboot policy,
// the ports it waits for, the modules it loads with parameters, the network it declares).
// Readers tolerate a field that is absent or of the wrong type: an older install reads as
// the defaults.
import {
  type BondDeclaration,
  type InterfaceDeclaration,
  type NetworkDeclaration,
  NO_NETWORK,
  type RouteDeclaration,
  type VlanDeclaration,
} from "../common/network-declaration.ts";
import { SYSTEM_LABELS } from "../common/partition-labels.ts";
import { jsonDocumentText, jsonObjectIn } from "./state-partition.ts";

export interface IdentityModule {
  readonly name: string;
  /** Space-separated `NAME=VALUE` words, as modprobe takes them. */
  readonly parameters: string;
}

/** One disk of a mirrored system disk, as the install wrote it. */
export interface IdentityMirrorMember {
  /** 1 or 2: the disk's place in the mirror, as its claim says. */
  readonly member: 1 | 2;
  readonly serial?: string;
  readonly wwn?: string;
  /** The disk's path at install time (a path only: the kernel may name it otherwise later). */
  readonly path: string;
  /** The PARTUUIDs of its system partitions, by GPT name: liken-esp, liken-a, liken-b, liken-journal, liken-state. */
  readonly partUuids: Readonly<Record<string, string>>;
}

export interface Identity {
  readonly cluster: string;
  readonly machine: string;
  readonly role: string;
  readonly installId: string;
  readonly installedRelease: string;
  readonly installedAt: string;
  readonly ports: readonly string[];
  readonly modules: readonly IdentityModule[];
  readonly rebootPolicy: "Automatic" | "Manual";
  readonly storage: readonly { readonly role: string; readonly label: string }[];
  /** The machine's declared interfaces and nameservers, as the manifest says them. */
  readonly network: NetworkDeclaration;
  /** The two disks of a mirrored system disk; absent when the system is on one disk. */
  readonly mirror?: { readonly members: readonly IdentityMirrorMember[] };
}

/**
 * The document as the disk holds it; null when there is none or it is not a JSON object.
 * Its fields are not checked: an older install wrote fewer, so a reader that uses one
 * checks it (parseBootIdentity), and a reader that shows it to people shows what is there.
 */
export function parseIdentity(text: string | null): Identity | null {
  return ((text !== null && jsonObjectIn(text)) || null) as Identity | null;
}

export function identityText(identity: Identity): string {
  return jsonDocumentText(identity);
}

/** What the boot agent needs of identity.json, with the defaults of an absent field. */
export interface BootIdentity {
  readonly installId: string | null;
  readonly rebootPolicy: "Automatic" | "Manual";
  readonly ports: readonly string[];
  readonly modules: readonly IdentityModule[];
  /** NO_NETWORK when absent (an older install) or when it does not read. */
  readonly network: NetworkDeclaration;
  /** Why the network in the file does not read, for the console; null when it reads or is absent. */
  readonly networkError: string | null;
  /** The machine's name in the manifest; null when absent. */
  readonly machine: string | null;
  /** The mirror's members that read whole; null when the system is on one disk. */
  readonly mirror: readonly IdentityMirrorMember[] | null;
  /** Why the mirror in the file does not read as its two members; null when it does or is absent. */
  readonly mirrorError: string | null;
  /** The storage roles and their partitions' GPT names, those that read whole. */
  readonly storage: readonly { readonly role: string; readonly label: string }[];
}

export function parseBootIdentity(text: string | null): BootIdentity {
  // Read as unknown: an older install or a person may have written any field any way.
  const value: Partial<Record<keyof Identity, unknown>> = parseIdentity(text) ?? {};
  const strings = (v: unknown) =>
    Array.isArray(v) ? v.filter((s): s is string => typeof s === "string") : [];
  const modules = Array.isArray(value.modules)
    ? value.modules.filter(
        (m): m is IdentityModule =>
          !!m &&
          typeof m === "object" &&
          typeof (m as IdentityModule).name === "string" &&
          typeof (m as IdentityModule).parameters === "string",
      )
    : [];
  // The network is applied whole or not at all: a declaration with one field the agent
  // cannot read (a person's edit, a file cut short) would otherwise build half of what was
  // meant.
  const network = value.network === undefined ? null : readNetworkDeclaration(value.network);
  const [networkError = null] = network?.errors ?? [];
  const mirror = value.mirror === undefined ? null : readMirror(value.mirror);
  const storage = Array.isArray(value.storage)
    ? value.storage.filter(
        (s): s is { role: string; label: string } =>
          !!s &&
          typeof s === "object" &&
          typeof (s as { role: unknown }).role === "string" &&
          typeof (s as { label: unknown }).label === "string",
      )
    : [];
  return {
    installId: typeof value.installId === "string" ? value.installId : null,
    rebootPolicy: value.rebootPolicy === "Automatic" ? "Automatic" : "Manual",
    ports: strings(value.ports),
    modules: modules.map((m) => ({ name: m.name, parameters: m.parameters })),
    network: network && networkError === null ? network.network : NO_NETWORK,
    networkError,
    machine: typeof value.machine === "string" ? value.machine : null,
    mirror: mirror?.members ?? null,
    mirrorError: mirror?.error ?? null,
    storage: storage.map((s) => ({ role: s.role, label: s.label })),
  };
}

/**
 * identity.json's `mirror`: the members that read, and why the mirror is not two of them.
 * A member reads when it has its place, its path and the PARTUUIDs of its five system
 * partitions (lower case, as the agent reads them from the GPT).
 */
function readMirror(v: unknown): { members: IdentityMirrorMember[]; error: string | null } {
  const listed = isObject(v) && Array.isArray(v.members) ? v.members : null;
  if (!listed) return { members: [], error: "mirror.members is not a list" };
  const members: IdentityMirrorMember[] = [];
  let error: string | null = null;
  for (const [n, m] of listed.entries()) {
    const read = readMirrorMember(m, `mirror.members[${n}]`);
    if (typeof read === "string") error ??= read;
    else if (members.some((o) => o.member === read.member))
      error ??= `mirror.members names member ${read.member} twice`;
    else members.push(read);
  }
  if (error === null && members.length !== 2)
    error = `mirror.members holds ${members.length} members, not 2`;
  return { members: members.sort((x, y) => x.member - y.member), error };
}

function readMirrorMember(v: unknown, at: string): Read<IdentityMirrorMember> {
  if (!isObject(v)) return `${at} is not an object`;
  if (v.member !== 1 && v.member !== 2) return `${at}.member is not 1 or 2`;
  if (typeof v.path !== "string") return `${at}.path is not a path`;
  const uuids = isObject(v.partUuids) ? v.partUuids : {};
  const partUuids: Record<string, string> = {};
  for (const label of SYSTEM_LABELS) {
    const uuid = uuids[label];
    if (typeof uuid !== "string" || uuid === "") return `${at}.partUuids has no ${label}`;
    partUuids[label] = uuid.toLowerCase();
  }
  return {
    member: v.member,
    ...(typeof v.serial === "string" && v.serial !== "" && { serial: v.serial }),
    ...(typeof v.wwn === "string" && v.wwn !== "" && { wwn: v.wwn }),
    path: v.path,
    partUuids,
  };
}

/** identity.json's `network` as far as it reads. */
export interface NetworkRead {
  /** The nameservers and the interfaces that read; an interface with one field that does not is left out. */
  readonly network: NetworkDeclaration;
  /** Why each part left out does not read, in the file's order; empty when all of it reads. */
  readonly errors: readonly string[];
}

/**
 * The one reader of identity.json's `network`: the boot agent applies it only when it reads
 * whole (parseBootIdentity), `inspect` shows what reads. What it reads is the manifest's
 * checked shape; the words go to ip as arguments, each one a name or an address.
 */
export function readNetworkDeclaration(v: unknown): NetworkRead {
  if (!isObject(v)) return { network: NO_NETWORK, errors: ["network is not an object"] };
  const errors: string[] = [];
  if (!Array.isArray(v.interfaces)) errors.push("network.interfaces is not a list");
  const nameservers = wordsOf(v.nameservers, ADDRESS, "network.nameservers");
  if (typeof nameservers === "string") errors.push(nameservers);
  const interfaces: InterfaceDeclaration[] = [];
  for (const [n, entry] of (Array.isArray(v.interfaces) ? v.interfaces : []).entries()) {
    const read = readInterface(entry, `network.interfaces[${n}]`);
    if (typeof read === "string") errors.push(read);
    else interfaces.push(read);
  }
  // A nameserver that does not read is left out; the ones beside it still show.
  const listed: unknown[] = Array.isArray(v.nameservers) ? v.nameservers : [];
  const readable = listed.filter((w): w is string => typeof w === "string" && ADDRESS.test(w));
  return {
    network: { interfaces, nameservers: typeof nameservers === "string" ? readable : nameservers },
    errors,
  };
}

type Read<T> = T | string;

const NAME = /^[A-Za-z0-9][A-Za-z0-9_.:-]{0,14}$/;
const ADDRESS = /^[0-9A-Fa-f:.]+$/;
const CIDR = /^[0-9A-Fa-f:.]+\/\d{1,3}$/;

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

function wordsOf(v: unknown, shape: RegExp, what: string): Read<string[]> {
  if (!Array.isArray(v)) return `${what} is not a list`;
  const bad = v.find((w) => typeof w !== "string" || !shape.test(w));
  return bad === undefined ? (v as string[]) : `${what} holds ${JSON.stringify(bad)}`;
}

function readInterface(v: unknown, at: string): Read<InterfaceDeclaration> {
  if (!isObject(v)) return `${at} is not an object`;
  if (typeof v.name !== "string" || !NAME.test(v.name))
    return `${at}.name is not an interface name`;
  const addresses = wordsOf(v.addresses, CIDR, `${at}.addresses`);
  if (typeof addresses === "string") return addresses;
  if (typeof v.dhcp !== "boolean") return `${at}.dhcp is not true or false`;
  if (v.mtu !== undefined && !(Number.isInteger(v.mtu) && (v.mtu as number) >= 68))
    return `${at}.mtu is not an MTU`;
  if (!Array.isArray(v.routes)) return `${at}.routes is not a list`;
  const routes: RouteDeclaration[] = [];
  for (const r of v.routes) {
    if (!isObject(r) || typeof r.to !== "string" || !CIDR.test(r.to))
      return `${at}.routes has a route without a CIDR \`to\``;
    if (typeof r.via !== "string" || !ADDRESS.test(r.via))
      return `${at}.routes has a route without an address \`via\``;
    routes.push({ to: r.to, via: r.via });
  }
  const bond = v.bond === undefined ? undefined : readBond(v.bond, `${at}.bond`);
  const vlan = v.vlan === undefined ? undefined : readVlan(v.vlan, `${at}.vlan`);
  if (typeof bond === "string") return bond;
  if (typeof vlan === "string") return vlan;
  if (bond && vlan) return `${at} is both a bond and a VLAN`;
  return {
    name: v.name,
    ...(bond && { bond }),
    ...(vlan && { vlan }),
    ...(v.mtu !== undefined && { mtu: v.mtu as number }),
    addresses,
    routes,
    dhcp: v.dhcp,
  };
}

function readBond(v: unknown, at: string): Read<BondDeclaration> {
  if (!isObject(v)) return `${at} is not an object`;
  if (v.mode !== "802.3ad" && v.mode !== "active-backup")
    return `${at}.mode is not 802.3ad or active-backup`;
  const ports = wordsOf(v.ports, NAME, `${at}.ports`);
  return typeof ports === "string" ? ports : { ports, mode: v.mode };
}

function readVlan(v: unknown, at: string): Read<VlanDeclaration> {
  if (!isObject(v)) return `${at} is not an object`;
  if (typeof v.link !== "string" || !NAME.test(v.link))
    return `${at}.link is not an interface name`;
  if (!Number.isInteger(v.id) || (v.id as number) < 1 || (v.id as number) > 4094)
    return `${at}.id is not 1 to 4094`;
  return { link: v.link, id: v.id as number };
}
