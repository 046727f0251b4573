// One interface's `addresses` and `routes` (docs/manifest.md, Networks): static addresses
// in CIDR form, and routes whose gateway the interface reaches through its own subnets.
import {
  type Cidr,
  familyName,
  formatCidr,
  hostAddressProblem,
  type IpAddress,
  inSubnet,
  isNetworkAddress,
  networkOf,
  parseAddress,
  parseCidr,
  specialAddressProblem,
} from "../common/ip-address.ts";
import type { RouteDeclaration } from "../common/network-declaration.ts";
import type { Check } from "./check.ts";
import { ROUTE_KEYS } from "./keys.ts";
import type { KeyPath } from "./locate.ts";
import { isTable, type TomlTable } from "./toml-values.ts";

const ADDRESSES_HINT = 'write addresses = ["10.0.40.11/24", "fd00:40::11/64"]';
const ROUTES_HINT = 'write routes = [{ to = "0.0.0.0/0", via = "10.0.40.1" }]';

/** A static address as declared, and what it means. */
export interface ReadAddress {
  readonly text: string;
  readonly cidr: Cidr;
}

/** The interface's static addresses (`[]` when absent), or null after reporting. */
export function readAddresses(ck: Check, item: TomlTable, path: KeyPath): ReadAddress[] | null {
  const value = item.addresses;
  if (value === undefined) return [];
  const listPath = [...path, "addresses"];
  if (!Array.isArray(value)) {
    ck.wrongType(listPath, value, "addresses", "an array of strings", ADDRESSES_HINT);
    return null;
  }
  const out: ReadAddress[] = [];
  let ok = true;
  value.forEach((text: unknown, index) => {
    const at = [...listPath, index];
    if (typeof text !== "string") {
      ck.wrongType(at, text, "each address", "a string", ADDRESSES_HINT);
      ok = false;
      return;
    }
    const cidr = readCidr(ck, at, text, "address", ADDRESSES_HINT);
    if (cidr === undefined) {
      ok = false;
      return;
    }
    const problem = hostAddressProblem(cidr);
    if (problem !== undefined) {
      ck.error(
        ck.valuePos(at),
        `address ${JSON.stringify(text)} ${problem}`,
        "declare an address that is this interface's alone, inside the subnet it is on",
      );
      ok = false;
      return;
    }
    out.push({ text, cidr });
  });
  return ok ? out : null;
}

/**
 * `text` as a CIDR, or undefined after saying what is wrong with it: no prefix length, an
 * address that is none, or a prefix length its family does not have.
 */
export function readCidr(
  ck: Check,
  at: KeyPath,
  text: string,
  label: string,
  example: string,
): Cidr | undefined {
  const cidr = parseCidr(text);
  if (cidr !== undefined) return cidr;
  const slash = text.lastIndexOf("/");
  const address = parseAddress(slash < 0 ? text : text.slice(0, slash));
  const what = `${label} ${JSON.stringify(text)}`;
  if (address === undefined) {
    ck.error(ck.valuePos(at), `${what} is not an IPv4 or IPv6 address`, example);
  } else if (slash < 0) {
    const suggestion = `${text}/${address.family === 4 ? 24 : 64}`;
    ck.error(
      ck.valuePos(at),
      `${what} has no prefix length`,
      `write the address with its subnet's prefix length, such as ${JSON.stringify(suggestion)}`,
    );
  } else {
    const bits = address.family === 4 ? 32 : 128;
    ck.error(
      ck.valuePos(at),
      `${what} has a prefix length that is not 0 to ${bits}`,
      `an ${familyName(address.family)} prefix length is a decimal number of 0 to ${bits} bits`,
    );
  }
  return undefined;
}

/** A route as declared, and where its gateway is. */
export interface ReadRoute {
  readonly declared: RouteDeclaration;
  readonly to: Cidr;
  readonly index: number;
}

/**
 * The interface's routes (`[]` when absent), or null after reporting. `addresses` are the
 * interface's own (null when they did not read): a gateway lies inside one of their subnets.
 */
export function readRoutes(
  ck: Check,
  item: TomlTable,
  path: KeyPath,
  addresses: readonly ReadAddress[] | null,
): ReadRoute[] | null {
  const value = item.routes;
  if (value === undefined) return [];
  const listPath = [...path, "routes"];
  if (!Array.isArray(value)) {
    ck.wrongType(listPath, value, "routes", "an array of tables", ROUTES_HINT);
    return null;
  }
  const out: ReadRoute[] = [];
  let ok = true;
  value.forEach((route: unknown, index) => {
    const at = [...listPath, index];
    if (!isTable(route)) {
      ck.wrongType(at, route, "each route", "a table", ROUTES_HINT);
      ok = false;
      return;
    }
    const read = readRoute(ck, route, at, addresses);
    if (read === undefined) ok = false;
    else out.push({ ...read, index });
  });
  return ok ? out : null;
}

function readRoute(
  ck: Check,
  route: TomlTable,
  at: KeyPath,
  addresses: readonly ReadAddress[] | null,
): { declared: RouteDeclaration; to: Cidr } | undefined {
  ck.unknownKeys(route, at, ROUTE_KEYS, "in a route");
  const to = readRouteTo(ck, route, at);
  const via = readRouteVia(ck, route, at);
  if (to === undefined || via === undefined) return undefined;
  const viaPath = [...at, "via"];
  if (via.address.family !== to.cidr.address.family) {
    const toFamily = familyName(to.cidr.address.family);
    ck.error(
      ck.valuePos(viaPath),
      `route via ${JSON.stringify(via.text)} is ${familyName(via.address.family)} but its to ${JSON.stringify(to.text)} is ${toFamily}`,
      `a gateway has the family of the addresses it leads to: give an ${toFamily} gateway`,
    );
    return undefined;
  }
  // The interface's addresses were reported already when they did not read.
  if (addresses === null) return undefined;
  if (!gatewayIsReached(ck, viaPath, via, addresses)) return undefined;
  return { declared: { to: to.text, via: via.text }, to: to.cidr };
}

function readRouteTo(
  ck: Check,
  route: TomlTable,
  at: KeyPath,
): { text: string; cidr: Cidr } | undefined {
  const hint =
    'write the subnet it leads to, such as "10.1.0.0/16", or "0.0.0.0/0" for the default route';
  if (!("to" in route)) {
    ck.error(ck.valuePos(at), 'missing key "to" in a route', `add to: ${hint}`);
    return undefined;
  }
  const text = ck.optionalString(route, at, "to", "route to", 'quote it: to = "0.0.0.0/0"');
  if (text === undefined) return undefined;
  const toPath = [...at, "to"];
  const cidr = readCidr(ck, toPath, text, "route to", hint);
  if (cidr === undefined) return undefined;
  if (!isNetworkAddress(cidr)) {
    ck.error(
      ck.valuePos(toPath),
      `route to ${JSON.stringify(text)} has host bits set`,
      `write the subnet it leads to: ${JSON.stringify(formatCidr(networkOf(cidr)))}`,
    );
    return undefined;
  }
  return { text, cidr };
}

function readRouteVia(
  ck: Check,
  route: TomlTable,
  at: KeyPath,
): { text: string; address: IpAddress } | undefined {
  const hint = 'write the gateway\'s address alone, without a prefix length, such as "10.0.40.1"';
  if (!("via" in route)) {
    ck.error(
      ck.valuePos(at),
      'missing key "via" in a route',
      "add via, the gateway's address, inside one of this interface's subnets",
    );
    return undefined;
  }
  const text = ck.optionalString(route, at, "via", "route via", 'quote it: via = "10.0.40.1"');
  if (text === undefined) return undefined;
  const viaPath = [...at, "via"];
  const address = parseAddress(text);
  if (address === undefined) {
    ck.error(
      ck.valuePos(viaPath),
      `route via ${JSON.stringify(text)} is not an IPv4 or IPv6 address`,
      hint,
    );
    return undefined;
  }
  const problem = specialAddressProblem(address);
  if (problem !== undefined) {
    ck.error(
      ck.valuePos(viaPath),
      `route via ${JSON.stringify(text)} ${problem}`,
      "write the gateway's address, inside one of this interface's subnets",
    );
    return undefined;
  }
  return { text, address };
}

/** A gateway is reached directly: it lies in a subnet of one of the interface's addresses. */
function gatewayIsReached(
  ck: Check,
  viaPath: KeyPath,
  via: { text: string; address: IpAddress },
  addresses: readonly ReadAddress[],
): boolean {
  const family = familyName(via.address.family);
  const subnets = addresses
    .filter((a) => a.cidr.address.family === via.address.family)
    .map((a) => networkOf(a.cidr));
  if (subnets.length === 0) {
    ck.error(
      ck.valuePos(viaPath),
      `an ${family} route on an interface with no static ${family} address`,
      `add to its addresses an ${family} address in the gateway's subnet: a gateway is reached through the interface's own subnet`,
    );
    return false;
  }
  if (subnets.some((s) => inSubnet(via.address, s))) return true;
  const names = [...new Set(subnets.map(formatCidr))].join(" or ");
  ck.error(
    ck.valuePos(viaPath),
    `route via ${JSON.stringify(via.text)} is outside this interface's subnets`,
    `a gateway is reached directly: use one inside ${names}`,
  );
  return false;
}
