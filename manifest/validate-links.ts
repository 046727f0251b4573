// How one machine's interfaces fit together: each name once, a port is a declared port,
// a bond bonds declared ports that no other bond holds, a VLAN rides on a port or a bond,
// a VLAN's MTU fits on its link, one default route per family. Judged once every
// interface of the machine read cleanly: with one missing, a link would seem undeclared.
import { familyName } from "../common/ip-address.ts";
import { interfaceKind } from "../common/network-declaration.ts";
import type { Check } from "./check.ts";
import type { KeyPath } from "./locate.ts";
import { IPV6_MIN_MTU, type ReadInterface } from "./validate-interface.ts";

/** What an Ethernet interface has when no MTU is declared for it. */
const ETHERNET_MTU = 1500;

export function checkLinks(
  ck: Check,
  interfaces: readonly ReadInterface[],
  ports: readonly string[],
  machinePath: KeyPath,
): void {
  const path = (i: ReadInterface, ...keys: (string | number)[]): KeyPath => [
    ...machinePath,
    "interfaces",
    i.index,
    ...keys,
  ];
  checkNames(ck, interfaces, ports, path);
  const bondOf = checkBondPorts(ck, interfaces, ports, path);
  checkPorts(ck, interfaces, ports, bondOf, path);
  checkVlans(ck, interfaces, ports, bondOf, path);
  checkDefaultRoutes(ck, interfaces, path);
  warnIdle(ck, interfaces, bondOf, path);
}

type PathOf = (i: ReadInterface, ...keys: (string | number)[]) => KeyPath;

function checkNames(
  ck: Check,
  interfaces: readonly ReadInterface[],
  ports: readonly string[],
  path: PathOf,
): void {
  const first = new Map<string, ReadInterface>();
  for (const i of interfaces) {
    const { name } = i.declared;
    const earlier = first.get(name);
    if (earlier !== undefined) {
      ck.error(
        ck.valuePos(path(i, "name")),
        `interface ${JSON.stringify(name)} is declared twice`,
        `the first is on line ${ck.valuePos(path(earlier, "name")).line}; declare each interface once, with all its keys`,
      );
      continue;
    }
    first.set(name, i);
    const kind = interfaceKind(i.declared);
    if (kind === "port" || !ports.includes(name)) continue;
    const example = i.declared.vlan
      ? `${i.declared.vlan.link}.${i.declared.vlan.id}`
      : `bond${interfaces.filter((j) => j.declared.bond).indexOf(i)}`;
    const what = kind === "bond" ? "bond" : "VLAN";
    ck.error(
      ck.valuePos(path(i, "name")),
      `${what} ${JSON.stringify(name)} has the name of a port`,
      `a ${what} is an interface of its own: name it otherwise, such as ${JSON.stringify(example)}`,
    );
  }
}

/** Each bond's ports are declared ports in no other bond; the answer maps a port to its bond. */
function checkBondPorts(
  ck: Check,
  interfaces: readonly ReadInterface[],
  ports: readonly string[],
  path: PathOf,
): Map<string, string> {
  const bondOf = new Map<string, string>();
  for (const i of interfaces) {
    const bond = i.declared.bond;
    if (bond === undefined) continue;
    bond.ports.forEach((port, k) => {
      const at = ck.valuePos(path(i, "bond", "ports", k));
      const other = bondOf.get(port);
      if (!ports.includes(port))
        ck.error(
          at,
          `port ${JSON.stringify(port)} of bond ${i.declared.name} is not in this machine's ports`,
          `add it to ports: a bond bonds declared ports`,
        );
      else if (other !== undefined)
        ck.error(
          at,
          `port ${JSON.stringify(port)} is already in bond ${other}`,
          "a port is a member of one bond at most",
        );
      else bondOf.set(port, i.declared.name);
    });
  }
  return bondOf;
}

/** An interface that is neither bond nor VLAN is a declared port, and not a bond's member. */
function checkPorts(
  ck: Check,
  interfaces: readonly ReadInterface[],
  ports: readonly string[],
  bondOf: ReadonlyMap<string, string>,
  path: PathOf,
): void {
  for (const i of interfaces) {
    if (interfaceKind(i.declared) !== "port") continue;
    const { name } = i.declared;
    const bond = bondOf.get(name);
    if (!ports.includes(name))
      ck.error(
        ck.valuePos(path(i, "name")),
        `interface ${JSON.stringify(name)} is not in this machine's ports`,
        "add it to ports, or declare bond or vlan to create it",
      );
    else if (bond !== undefined)
      ck.error(
        ck.valuePos(path(i, "name")),
        `interface ${JSON.stringify(name)} is a member of bond ${bond}`,
        `declare its addresses on ${bond} and remove this interface: a bond member carries nothing of its own, and ${bond}'s mtu applies to it`,
      );
  }
}

/** A VLAN's link is a port or a bond of this machine; its id is once per link; its MTU fits. */
function checkVlans(
  ck: Check,
  interfaces: readonly ReadInterface[],
  ports: readonly string[],
  bondOf: ReadonlyMap<string, string>,
  path: PathOf,
): void {
  const seen = new Map<string, ReadInterface>();
  const bonds = interfaces.filter((i) => i.declared.bond).map((i) => i.declared.name);
  for (const i of interfaces) {
    const vlan = i.declared.vlan;
    if (vlan === undefined) continue;
    const linkAt = ck.valuePos(path(i, "vlan", "link"));
    const member = bondOf.get(vlan.link);
    const what = `link ${JSON.stringify(vlan.link)} of VLAN ${i.declared.name}`;
    if (member !== undefined) {
      ck.error(
        linkAt,
        `${what} is a member of bond ${member}`,
        `put the VLAN on the bond: link = ${JSON.stringify(member)}`,
      );
      continue;
    }
    if (!ports.includes(vlan.link) && !bonds.includes(vlan.link)) {
      const known = [...ports, ...bonds];
      ck.error(
        linkAt,
        `${what} is neither a port nor a bond of this machine`,
        known.length === 0
          ? "declare the port in ports, or a bond in [[machines.interfaces]]"
          : `name one of its ports or bonds: ${known.join(", ")}`,
      );
      continue;
    }
    const key = `${vlan.link} ${vlan.id}`;
    const earlier = seen.get(key);
    if (earlier !== undefined) {
      ck.error(
        ck.valuePos(path(i, "vlan", "id")),
        `VLAN ${vlan.id} on ${vlan.link} is declared twice`,
        `the first is ${earlier.declared.name} on line ${ck.valuePos(path(earlier, "name")).line}; declare each VLAN once`,
      );
      continue;
    }
    seen.set(key, i);
    const link = interfaces.find((j) => j.declared.name === vlan.link);
    checkVlanMtu(ck, i, link, vlan.link, path);
  }
}

/** A VLAN's frames ride on its link: its MTU is at most the link's, which it takes when it has none. */
function checkVlanMtu(
  ck: Check,
  vlan: ReadInterface,
  link: ReadInterface | undefined,
  linkName: string,
  path: PathOf,
): void {
  const own = vlan.declared.mtu;
  const linkMtu = link?.declared.mtu;
  if (own !== undefined) {
    if (own <= (linkMtu ?? ETHERNET_MTU)) return;
    ck.error(
      ck.valuePos(path(vlan, "mtu")),
      linkMtu === undefined
        ? `mtu ${own} of VLAN ${vlan.declared.name} is above the ${ETHERNET_MTU} its link ${linkName} has by default`
        : `mtu ${own} of VLAN ${vlan.declared.name} is above the mtu ${linkMtu} of its link ${linkName}`,
      link === undefined
        ? `declare ${linkName} in [[machines.interfaces]] with mtu = ${own}: a VLAN's frames ride on its link`
        : `set mtu = ${own} on ${linkName} as well, or lower this one: a VLAN's frames ride on its link`,
    );
    return;
  }
  const v6 = vlan.addresses.findIndex((a) => a.cidr.address.family === 6);
  if (linkMtu === undefined || linkMtu >= IPV6_MIN_MTU || v6 < 0) return;
  ck.error(
    ck.valuePos(path(vlan, "addresses", v6)),
    `VLAN ${vlan.declared.name} carries IPv6 on the mtu ${linkMtu} of its link ${linkName}`,
    `raise ${linkName}'s mtu to ${IPV6_MIN_MTU} or more, the least IPv6 works on`,
  );
}

/** One default route per family: a second would leave the kernel to choose. */
function checkDefaultRoutes(ck: Check, interfaces: readonly ReadInterface[], path: PathOf): void {
  const first = new Map<number, { i: ReadInterface; index: number }>();
  for (const i of interfaces) {
    for (const route of i.routes) {
      if (route.to.prefix !== 0) continue;
      const family = route.to.address.family;
      const earlier = first.get(family);
      if (earlier === undefined) {
        first.set(family, { i, index: route.index });
        continue;
      }
      const line = ck.valuePos(path(earlier.i, "routes", earlier.index)).line;
      ck.error(
        ck.valuePos(path(i, "routes", route.index, "to")),
        `a second ${familyName(family)} default route`,
        `the first is on line ${line}, on ${earlier.i.declared.name}; a machine has one default route per family`,
      );
    }
  }
}

/** An interface that is built but carries nothing is most likely a declaration left unfinished. */
function warnIdle(
  ck: Check,
  interfaces: readonly ReadInterface[],
  bondOf: ReadonlyMap<string, string>,
  path: PathOf,
): void {
  const links = new Set(interfaces.flatMap((i) => (i.declared.vlan ? [i.declared.vlan.link] : [])));
  for (const i of interfaces) {
    const { name, addresses, dhcp } = i.declared;
    if (addresses.length > 0 || dhcp || links.has(name) || bondOf.has(name)) continue;
    ck.warn(
      ck.valuePos(path(i, "name")),
      `interface ${JSON.stringify(name)} carries nothing`,
      "it has no addresses, no dhcp and no VLAN on it: add addresses or dhcp = true, or remove it",
    );
  }
}
