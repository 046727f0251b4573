// Which declared interfaces this machine can build (docs/hwreport.md, Interfaces): each
// one's ports as this machine has them. Pure: the NICs are read elsewhere. The boot's own
// verdict is NetworkReady; this is the same question asked before the install.
import { type InterfaceDeclaration, interfaceKind } from "../common/network-declaration.ts";
import type { Machine } from "../manifest/types.ts";
import type { InterfaceReport, NicReport } from "./types.ts";

export function declaredInterfaces(
  machines: readonly Machine[],
  nics: readonly NicReport[],
): InterfaceReport[] {
  return machines.flatMap((m) =>
    m.interfaces.map((declared): InterfaceReport => {
      const ports = portsUnder(declared, m.interfaces).map((port) => {
        const nic = nics.find((n) => n.name === port);
        return { port, exists: nic !== undefined, carrier: nic?.carrier ?? false };
      });
      return {
        machine: m.name,
        name: declared.name,
        kind: interfaceKind(declared),
        ports,
        ...verdict(declared, ports),
      };
    }),
  );
}

// The ports whose cables carry the interface: itself, a bond's members, a VLAN's link's.
function portsUnder(
  declared: InterfaceDeclaration,
  all: readonly InterfaceDeclaration[],
): string[] {
  if (declared.bond) return [...declared.bond.ports];
  if (declared.vlan) {
    const link = all.find((i) => i.name === declared.vlan?.link);
    return link?.bond ? [...link.bond.ports] : [declared.vlan.link];
  }
  return [declared.name];
}

type Port = InterfaceReport["ports"][number];

function verdict(
  declared: InterfaceDeclaration,
  ports: readonly Port[],
): Pick<InterfaceReport, "buildable" | "summary"> {
  const missing = ports.filter((p) => !p.exists).map((p) => p.port);
  const dark = ports.filter((p) => p.exists && !p.carrier).map((p) => p.port);
  const lit = ports.filter((p) => p.carrier).map((p) => p.port);
  if (missing.length > 0)
    return {
      buildable: false,
      summary: `cannot be built here: ${words(missing)} ${missing.length === 1 ? "is" : "are"} not on this machine`,
    };
  if (lit.length === 0)
    return {
      buildable: true,
      summary: `can be built, but carries nothing: ${words(dark)} ${dark.length === 1 ? "has" : "have"} no carrier`,
    };
  const over = declared.bond || (declared.vlan && ports.length > 1) ? "bond members " : "";
  if (dark.length > 0)
    return {
      buildable: true,
      summary: `can be built, degraded: ${over}${words(lit)} with carrier, ${words(dark)} without`,
    };
  return { buildable: true, summary: `can be built: ${over}${words(lit)} with carrier` };
}

function words(names: readonly string[]): string {
  return names.length <= 1
    ? (names[0] ?? "")
    : `${names.slice(0, -1).join(", ")} and ${names[names.length - 1]}`;
}
