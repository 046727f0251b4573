// The declared network (common/network-declaration.ts) as the steps that build it on this
// machine, in the order the kernel needs them (docs/rollback.md, The declared network):
//
// 1. the bonding driver (no bond of its own: max_bonds=0) and the 802.1Q driver;
// 2. each declared port's MTU, and up;
// 3. each bond: created down, its MTU set while it has no port (each port takes the bond's
//    MTU as it joins), its ports joined (the kernel takes a port only while it is down, and
//    brings it up itself), then up;
// 4. each bond awaited: its ports with carrier joined and, for 802.3ad, aggregated with a
//    partner (bounded: a bond with no partner still carries traffic on one port);
// 5. each VLAN, on a link that is up with its MTU: created (it takes the link's MTU), its
//    own MTU (at most its link's), up;
// 6. the addresses: an IPv4 one probed for another holder first (arping) and left out when
//    taken; an IPv6 one added, the kernel running its duplicate detection;
// 7. the IPv6 detection awaited; 8. the routes, through gateways in the subnets now held;
// 9. DHCP where declared; 10. the nameservers.
//
// Pure: what cannot be built (a port that does not exist, and everything on it) is in the
// plan, not a step.
import {
  type BondMode,
  type InterfaceDeclaration,
  type InterfaceKind,
  interfaceKind,
  type NetworkDeclaration,
} from "../../common/network-declaration.ts";
import { RESOLV_CONF } from "../../formats/resolv-conf.ts";
import { familyOf } from "./address.ts";

/** A link on the machine when the plan is made: a NIC, or a bond or VLAN already there. */
export interface PresentLink {
  readonly name: string;
  readonly carrier: boolean;
}

export type NetworkStep =
  | { readonly op: "load-module"; readonly module: string; readonly parameters: readonly string[] }
  | { readonly op: "create-bond"; readonly name: string; readonly mode: BondMode }
  | { readonly op: "set-mtu"; readonly name: string; readonly mtu: number }
  | { readonly op: "enslave"; readonly name: string; readonly port: string }
  | { readonly op: "set-up"; readonly name: string }
  | {
      readonly op: "await-bond";
      readonly name: string;
      readonly mode: BondMode;
      /** The ports that had carrier when the plan was made: those the wait is for. */
      readonly ports: readonly string[];
    }
  | {
      readonly op: "create-vlan";
      readonly name: string;
      readonly link: string;
      readonly id: number;
    }
  | { readonly op: "probe-address"; readonly name: string; readonly address: string }
  | { readonly op: "add-address"; readonly name: string; readonly address: string }
  | { readonly op: "await-dad"; readonly name: string; readonly addresses: readonly string[] }
  | { readonly op: "add-route"; readonly name: string; readonly to: string; readonly via: string }
  | { readonly op: "dhcp"; readonly name: string }
  | {
      readonly op: "write-nameservers";
      readonly file: string;
      readonly nameservers: readonly string[];
    };

export type StepOp = NetworkStep["op"];

export interface PlannedInterface {
  readonly declared: InterfaceDeclaration;
  readonly kind: InterfaceKind;
  /** The interfaces it is built on: a VLAN's link (and, for a VLAN on a bond, nothing more). */
  readonly below: readonly string[];
  /** A bond's declared ports that are on this machine; empty for a port or a VLAN. */
  readonly ports: readonly string[];
  /** Absent ports this interface needs: itself, a bond's ports, a VLAN link's. */
  readonly missingPorts: readonly string[];
  /** Why it is not built at all; null when its steps are in the plan. */
  readonly unbuilt: string | null;
}

export interface NetworkPlan {
  /** Every declared interface, in the order declared. */
  readonly interfaces: readonly PlannedInterface[];
  readonly steps: readonly NetworkStep[];
  readonly nameservers: readonly string[];
}

export function planNetwork(
  declaration: NetworkDeclaration,
  presentLinks: readonly PresentLink[],
): NetworkPlan {
  const present = new Map(presentLinks.map((l) => [l.name, l]));
  const interfaces = planInterfaces(declaration.interfaces, present);
  const built = interfaces.filter((i) => i.unbuilt === null);
  const ofKind = (kind: InterfaceKind) => built.filter((i) => i.kind === kind);
  const steps: NetworkStep[] = [
    ...moduleSteps(built),
    ...ofKind("port").flatMap((i) => [
      ...mtuStep(i.declared),
      { op: "set-up", name: i.declared.name } as const,
    ]),
    ...ofKind("bond").flatMap(bondSteps),
    ...ofKind("bond").map(
      (i): NetworkStep => ({
        op: "await-bond",
        name: i.declared.name,
        mode: i.declared.bond!.mode,
        ports: i.ports.filter((p) => present.get(p)?.carrier),
      }),
    ),
    ...ofKind("vlan").flatMap(vlanSteps),
    ...built.flatMap(addressSteps),
    ...built.flatMap((i): NetworkStep[] => {
      const v6 = i.declared.addresses.filter((a) => familyOf(a) === "inet6");
      return v6.length > 0 ? [{ op: "await-dad", name: i.declared.name, addresses: v6 }] : [];
    }),
    ...built.flatMap((i) =>
      i.declared.routes.map(
        (r): NetworkStep => ({ op: "add-route", name: i.declared.name, to: r.to, via: r.via }),
      ),
    ),
    ...built
      .filter((i) => i.declared.dhcp)
      .map((i): NetworkStep => ({ op: "dhcp", name: i.declared.name })),
  ];
  if (declaration.nameservers.length > 0)
    steps.push({
      op: "write-nameservers",
      file: RESOLV_CONF,
      nameservers: declaration.nameservers,
    });
  return { interfaces, steps, nameservers: declaration.nameservers };
}

function planInterfaces(
  declared: readonly InterfaceDeclaration[],
  present: ReadonlyMap<string, PresentLink>,
): PlannedInterface[] {
  const byName = new Map(declared.map((d) => [d.name, d]));
  const planned = new Map<string, PlannedInterface>();
  // Ports and bonds first: a VLAN's link is one of them, declared before or after it.
  for (const d of declared) {
    const kind = interfaceKind(d);
    if (kind === "vlan") continue;
    const ports = kind === "bond" ? d.bond!.ports : [];
    const missingPorts =
      kind === "bond" ? ports.filter((p) => !present.has(p)) : present.has(d.name) ? [] : [d.name];
    const unbuilt =
      kind === "port"
        ? missingPorts.length > 0
          ? `${d.name} does not exist on this machine`
          : null
        : missingPorts.length === ports.length
          ? `none of its ports ${ports.join(", ")} exists on this machine`
          : null;
    planned.set(d.name, {
      declared: d,
      kind,
      below: [],
      ports: ports.filter((p) => present.has(p)),
      missingPorts,
      unbuilt,
    });
  }
  for (const d of declared) {
    if (interfaceKind(d) !== "vlan") continue;
    const link = d.vlan!.link;
    const linkPlan = planned.get(link);
    const onVlan = byName.has(link) && interfaceKind(byName.get(link)!) === "vlan";
    // A link that is a port declared only in `ports`: it is there, or it is missing.
    const missingPorts = onVlan
      ? []
      : linkPlan
        ? linkPlan.unbuilt
          ? linkPlan.missingPorts
          : []
        : present.has(link)
          ? []
          : [link];
    const unbuilt = onVlan
      ? `its link ${link} is a VLAN; a VLAN goes on a port or a bond`
      : linkPlan?.unbuilt
        ? `its link ${link} is not built: ${linkPlan.unbuilt}`
        : !linkPlan && !present.has(link)
          ? `its link ${link} does not exist on this machine`
          : null;
    planned.set(d.name, {
      declared: d,
      kind: "vlan",
      below: [link],
      ports: [],
      missingPorts,
      unbuilt,
    });
  }
  return declared.map((d) => planned.get(d.name)!);
}

function moduleSteps(built: readonly PlannedInterface[]): NetworkStep[] {
  const steps: NetworkStep[] = [];
  // Without max_bonds=0 the driver makes a bond0 of its own as it loads, and the declared
  // bond0 would then exist before it is created.
  if (built.some((i) => i.kind === "bond"))
    steps.push({ op: "load-module", module: "bonding", parameters: ["max_bonds=0"] });
  if (built.some((i) => i.kind === "vlan"))
    steps.push({ op: "load-module", module: "8021q", parameters: [] });
  return steps;
}

function mtuStep(d: InterfaceDeclaration): NetworkStep[] {
  return d.mtu === undefined ? [] : [{ op: "set-mtu", name: d.name, mtu: d.mtu }];
}

function bondSteps(i: PlannedInterface): NetworkStep[] {
  const name = i.declared.name;
  return [
    { op: "create-bond", name, mode: i.declared.bond!.mode },
    ...mtuStep(i.declared),
    ...i.ports.map((port): NetworkStep => ({ op: "enslave", name, port })),
    { op: "set-up", name },
  ];
}

function vlanSteps(i: PlannedInterface): NetworkStep[] {
  const { name, vlan } = i.declared;
  return [
    { op: "create-vlan", name, link: vlan!.link, id: vlan!.id },
    ...mtuStep(i.declared),
    { op: "set-up", name },
  ];
}

function addressSteps(i: PlannedInterface): NetworkStep[] {
  const name = i.declared.name;
  return i.declared.addresses.flatMap((address): NetworkStep[] =>
    familyOf(address) === "inet"
      ? [
          { op: "probe-address", name, address },
          { op: "add-address", name, address },
        ]
      : [{ op: "add-address", name, address }],
  );
}
