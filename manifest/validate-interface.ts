// One [[machines.interfaces]] entry on its own: its keys, their types and ranges. What
// depends on the machine's other interfaces and ports is judged in validate-links.ts.
import { INTERFACE_NAME_RULE, interfaceNameProblem } from "../common/names.ts";
import type {
  BondDeclaration,
  BondMode,
  InterfaceDeclaration,
  VlanDeclaration,
} from "../common/network-declaration.ts";
import type { Check } from "./check.ts";
import { BOND_KEYS, BOND_MODES, INTERFACE_KEYS, VLAN_KEYS } from "./keys.ts";
import type { KeyPath } from "./locate.ts";
import { IN_INTERFACE } from "./misplaced.ts";
import { allowedHint } from "./suggest.ts";
import { isInteger, isTable, type TomlTable } from "./toml-values.ts";
import { type ReadAddress, type ReadRoute, readAddresses, readRoutes } from "./validate-ip.ts";

/** The least MTU IPv4 allows and the most that switches carry. */
export const MTU_RANGE = { min: 576, max: 9216 } as const;
/** IPv6 needs links of at least this MTU (RFC 8200). */
export const IPV6_MIN_MTU = 1280;

/** An interface as read, with what the machine-wide rules need: its index and parsed addresses. */
export interface ReadInterface {
  readonly index: number;
  readonly declared: InterfaceDeclaration;
  readonly addresses: readonly ReadAddress[];
  readonly routes: readonly ReadRoute[];
}

const BOND_HINT = 'write bond = { ports = ["eno1", "eno2"], mode = "802.3ad" }';
const VLAN_HINT = 'write vlan = { link = "bond0", id = 40 }';

export function readInterface(
  ck: Check,
  item: TomlTable,
  path: KeyPath,
  index: number,
): ReadInterface | undefined {
  ck.unknownKeys(item, path, INTERFACE_KEYS, IN_INTERFACE);
  const name = readInterfaceName(ck, item, path);
  const bond = item.bond === undefined ? undefined : readBond(ck, item.bond, [...path, "bond"]);
  const vlan = item.vlan === undefined ? undefined : readVlan(ck, item.vlan, [...path, "vlan"]);
  const mtu = readMtu(ck, item, path);
  const addresses = readAddresses(ck, item, path);
  const routes = readRoutes(ck, item, path, addresses);
  const dhcp = readDhcp(ck, item, path);
  if (item.bond !== undefined && item.vlan !== undefined) {
    const who = name === undefined ? "an interface" : `interface ${JSON.stringify(name)}`;
    const link = name ?? "bond0";
    ck.error(
      ck.keyPos([...path, "vlan"]),
      `${who} declares both bond and vlan`,
      `a VLAN on a bond is an interface of its own: declare the bond, then another interface with vlan = { link = ${JSON.stringify(link)}, id = 40 }`,
    );
    return undefined;
  }
  if (name === undefined || bond === null || vlan === null || mtu === null) return undefined;
  if (addresses === null || routes === null || dhcp === undefined) return undefined;
  if (
    mtu !== undefined &&
    mtu < IPV6_MIN_MTU &&
    addresses.some((a) => a.cidr.address.family === 6)
  ) {
    ck.error(
      ck.valuePos([...path, "mtu"]),
      `mtu ${mtu} of interface ${JSON.stringify(name)} is below ${IPV6_MIN_MTU}, the least IPv6 works on`,
      `raise mtu to ${IPV6_MIN_MTU} or more, or remove the IPv6 addresses`,
    );
    return undefined;
  }
  const declared: InterfaceDeclaration = {
    name,
    ...(bond === undefined ? {} : { bond }),
    ...(vlan === undefined ? {} : { vlan }),
    ...(mtu === undefined ? {} : { mtu }),
    addresses: addresses.map((a) => a.text),
    routes: routes.map((r) => r.declared),
    dhcp,
  };
  return { index, declared, addresses, routes };
}

function readInterfaceName(ck: Check, item: TomlTable, path: KeyPath): string | undefined {
  if (!("name" in item)) {
    ck.error(
      ck.tablePos(path),
      'missing key "name" in [[machines.interfaces]]',
      'add name = "NAME": a port of this machine, or the bond or VLAN to create, such as "bond0"',
    );
    return undefined;
  }
  const name = ck.optionalString(item, path, "name", "interface name", 'quote it: name = "eno1"');
  if (name === undefined) return undefined;
  const problem = interfaceNameProblem(name);
  if (problem !== undefined) {
    ck.error(
      ck.valuePos([...path, "name"]),
      `interface name ${JSON.stringify(name)} ${problem}`,
      INTERFACE_NAME_RULE,
    );
    return undefined;
  }
  return name;
}

/** The bond, or null after reporting. */
function readBond(ck: Check, value: unknown, path: KeyPath): BondDeclaration | null {
  if (!isTable(value)) {
    ck.wrongType(path, value, "bond", "a table", BOND_HINT);
    return null;
  }
  ck.unknownKeys(value, path, BOND_KEYS, "in bond");
  const ports = readBondPorts(ck, value, path);
  const mode = readBondMode(ck, value, path);
  return ports === undefined || mode === undefined ? null : { ports, mode };
}

function readBondPorts(ck: Check, bond: TomlTable, path: KeyPath): string[] | undefined {
  const hint = 'list the ports it bonds, such as ports = ["eno1", "eno2"]';
  const value = bond.ports;
  const at = [...path, "ports"];
  if (value === undefined) {
    ck.error(ck.valuePos(path), "bond names no ports", `add ports: ${hint}`);
    return undefined;
  }
  if (!Array.isArray(value)) {
    ck.wrongType(at, value, "bond.ports", "an array of strings", hint);
    return undefined;
  }
  if (value.length === 0) {
    ck.error(ck.valuePos(at), "bond.ports is empty", `${hint}; one port is allowed`);
    return undefined;
  }
  const ports: string[] = [];
  let ok = true;
  value.forEach((port: unknown, index) => {
    if (typeof port !== "string") {
      ck.wrongType([...at, index], port, "each bond port", "a string", hint);
      ok = false;
    } else if (ports.includes(port)) {
      ck.error(
        ck.valuePos([...at, index]),
        `port ${JSON.stringify(port)} is listed twice in bond.ports`,
        "list each port of a bond once",
      );
      ok = false;
    } else ports.push(port);
  });
  return ok ? ports : undefined;
}

function readBondMode(ck: Check, bond: TomlTable, path: KeyPath): BondMode | undefined {
  // No default: the mode must agree with the switch ports, and only the operator knows them.
  if (bond.mode === undefined) {
    ck.error(
      ck.valuePos(path),
      "bond has no mode",
      'add mode = "802.3ad" where the switch ports form an LACP group, or mode = "active-backup" for any switch',
    );
    return undefined;
  }
  const mode = ck.optionalString(bond, path, "mode", "bond.mode", 'quote it: mode = "802.3ad"');
  if (mode === undefined) return undefined;
  if ((BOND_MODES as readonly string[]).includes(mode)) return mode as BondMode;
  const lacp = /^lacp$/i.test(mode) || mode === "4";
  ck.error(
    ck.valuePos([...path, "mode"]),
    `bond mode ${JSON.stringify(mode)} is not a bond mode`,
    lacp
      ? `LACP is mode "802.3ad"; allowed: ${BOND_MODES.join(", ")}`
      : allowedHint(mode, BOND_MODES),
  );
  return undefined;
}

/** The VLAN, or null after reporting. */
function readVlan(ck: Check, value: unknown, path: KeyPath): VlanDeclaration | null {
  if (!isTable(value)) {
    ck.wrongType(path, value, "vlan", "a table", VLAN_HINT);
    return null;
  }
  ck.unknownKeys(value, path, VLAN_KEYS, "in vlan");
  let link: string | undefined;
  if (value.link === undefined)
    ck.error(
      ck.valuePos(path),
      "vlan names no link",
      'add link = "NAME": the port or bond of this machine that carries the VLAN',
    );
  else link = ck.optionalString(value, path, "link", "vlan.link", 'quote it: link = "bond0"');
  const id = readVlanId(ck, value, path);
  return link === undefined || id === undefined ? null : { link, id };
}

function readVlanId(ck: Check, vlan: TomlTable, path: KeyPath): number | undefined {
  const at = [...path, "id"];
  if (vlan.id === undefined) {
    ck.error(
      ck.valuePos(path),
      "vlan has no id",
      "add id = N, the VLAN id the switch port carries, 1 to 4094",
    );
    return undefined;
  }
  if (!isInteger(vlan.id, ck.raw(at))) {
    ck.wrongType(at, vlan.id, "vlan.id", "an integer", "write id = 40, without quotes");
    return undefined;
  }
  const id = Number(vlan.id);
  if (id < 1 || id > 4094) {
    ck.error(
      ck.valuePos(at),
      `VLAN id ${String(vlan.id)} is not 1 to 4094`,
      "0 and 4095 are reserved by 802.1Q: write the VLAN id the switch port carries",
    );
    return undefined;
  }
  return id;
}

/** The MTU (undefined when absent: the kernel's default), or null after reporting. */
function readMtu(ck: Check, item: TomlTable, path: KeyPath): number | undefined | null {
  if (item.mtu === undefined) return undefined;
  const at = [...path, "mtu"];
  if (!isInteger(item.mtu, ck.raw(at))) {
    ck.wrongType(at, item.mtu, "mtu", "an integer", "write mtu = 9000, in bytes, without quotes");
    return null;
  }
  const mtu = Number(item.mtu);
  if (mtu < MTU_RANGE.min || mtu > MTU_RANGE.max) {
    ck.error(
      ck.valuePos(at),
      `mtu ${String(item.mtu)} is not ${MTU_RANGE.min} to ${MTU_RANGE.max}`,
      "1500 is Ethernet's default and 9000 the usual jumbo frame; declare what the switch carries",
    );
    return null;
  }
  return mtu;
}

function readDhcp(ck: Check, item: TomlTable, path: KeyPath): boolean | undefined {
  if (item.dhcp === undefined) return false;
  if (typeof item.dhcp === "boolean") return item.dhcp;
  ck.wrongType(
    [...path, "dhcp"],
    item.dhcp,
    "dhcp",
    "a boolean",
    "write dhcp = true or dhcp = false, without quotes",
  );
  return undefined;
}
