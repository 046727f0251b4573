// A machine's network (docs/manifest.md, Networks): its `[[machines.interfaces]]` and its
// `nameservers`. None declared is the network of old: DHCP where the stick needs it, and
// nothing but the ports' wait on the installed machine.
import { canonicalAddress, parseAddress, specialAddressProblem } from "../common/ip-address.ts";
import type { Check } from "./check.ts";
import type { KeyPath } from "./locate.ts";
import { isTable, type TomlTable } from "./toml-values.ts";
import { type ReadInterface, readInterface } from "./validate-interface.ts";
import { checkLinks } from "./validate-links.ts";

/** resolv.conf reads this many `nameserver` lines and ignores the rest. */
export const MAX_NAMESERVERS = 3;

const INTERFACES_HINT =
  "write a [[machines.interfaces]] table for each interface, below its machine's keys";
const NAMESERVERS_HINT = 'write nameservers = ["10.0.40.2"], one address per DNS server';

/**
 * The machine's interfaces as read (positions kept for the manifest-wide rules) and its
 * nameservers; undefined after reporting. `ports` is undefined when they did not read: the
 * interfaces are then judged on their own, and how they fit the ports once the ports read.
 */
export function readNetwork(
  ck: Check,
  entry: TomlTable,
  path: KeyPath,
  ports: readonly string[] | undefined,
): { interfaces: ReadInterface[]; nameservers: string[] } | undefined {
  const interfaces = readInterfaces(ck, entry, path);
  const nameservers = readNameservers(ck, entry, path);
  if (interfaces !== undefined && ports !== undefined) checkLinks(ck, interfaces, ports, path);
  if (interfaces === undefined || nameservers === undefined) return undefined;
  const reached = interfaces.some((i) => i.declared.addresses.length > 0 || i.declared.dhcp);
  if (nameservers.length > 0 && !reached)
    ck.warn(
      ck.valuePos([...path, "nameservers"]),
      "nameservers but no interface with an address or dhcp",
      "declare an interface with addresses or dhcp = true: without one the machine reaches no nameserver",
    );
  return { interfaces, nameservers };
}

function readInterfaces(ck: Check, entry: TomlTable, path: KeyPath): ReadInterface[] | undefined {
  const value = entry.interfaces;
  if (value === undefined) return [];
  const listPath = [...path, "interfaces"];
  if (!Array.isArray(value)) {
    const hint = isTable(value)
      ? "write [[machines.interfaces]], with double brackets, for each interface"
      : INTERFACES_HINT;
    ck.wrongType(listPath, value, "interfaces", "an array of tables", hint);
    return undefined;
  }
  const out: ReadInterface[] = [];
  let ok = true;
  value.forEach((item: unknown, index) => {
    const at = [...listPath, index];
    if (!isTable(item)) {
      ck.wrongType(at, item, "each interface", "a table", INTERFACES_HINT);
      ok = false;
      return;
    }
    const read = readInterface(ck, item, at, index);
    if (read === undefined) ok = false;
    else out.push(read);
  });
  return ok ? out : undefined;
}

function readNameservers(ck: Check, entry: TomlTable, path: KeyPath): string[] | undefined {
  const value = entry.nameservers;
  if (value === undefined) return [];
  const listPath = [...path, "nameservers"];
  if (!Array.isArray(value)) {
    ck.wrongType(listPath, value, "nameservers", "an array of strings", NAMESERVERS_HINT);
    return undefined;
  }
  const out: string[] = [];
  const seen: string[] = [];
  let ok = true;
  value.forEach((text: unknown, index) => {
    const at = ck.valuePos([...listPath, index]);
    if (typeof text !== "string") {
      ck.wrongType([...listPath, index], text, "each nameserver", "a string", NAMESERVERS_HINT);
      ok = false;
      return;
    }
    const problem = nameserverProblem(text, seen);
    if (problem !== undefined) {
      ck.error(at, problem.message, problem.hint);
      ok = false;
      return;
    }
    out.push(text);
    seen.push(canonicalAddress(text) ?? text);
  });
  if (value.length > MAX_NAMESERVERS) {
    ck.error(
      ck.valuePos([...listPath, MAX_NAMESERVERS]),
      `${value.length} nameservers, more than ${MAX_NAMESERVERS}`,
      `resolv.conf reads the first ${MAX_NAMESERVERS} only: keep ${MAX_NAMESERVERS}`,
    );
    return undefined;
  }
  return ok ? out : undefined;
}

function nameserverProblem(
  text: string,
  seen: readonly string[],
): { message: string; hint: string } | undefined {
  const what = `nameserver ${JSON.stringify(text)}`;
  const address = parseAddress(text);
  if (address === undefined)
    return {
      message: `${what} is not an IPv4 or IPv6 address`,
      hint: 'write the address alone, without a prefix length, such as "10.0.40.2"',
    };
  const special = specialAddressProblem(address);
  if (special !== undefined)
    return {
      message: `${what} ${special}`,
      hint: "write the address of a DNS server on the machine's network",
    };
  if (seen.includes(canonicalAddress(text) ?? text))
    return { message: `${what} is listed twice`, hint: "list each nameserver once" };
  return undefined;
}
