// The declared network's outcome at boot (docs/rollback.md, NetworkReady): the condition
// from the plan, what each step came to, and what the machine holds afterwards. Every
// problem is named with its interface and what to do, most severe first; the most severe
// kind is the reason. Pure.
import type { AppliedNetwork, StepOutcome } from "../hardware/network/apply.ts";
import { and, stepWords } from "../hardware/network/lines.ts";
import type { ObservedInterface, ObservedNetwork } from "../hardware/network/observe.ts";
import type { NetworkPlan } from "../hardware/network/plan.ts";
import type { ConditionPart } from "./declared-modules.ts";

/** The reasons of a False NetworkReady, most severe first. */
export const NETWORK_PROBLEMS = [
  "InterfaceMissing",
  "BondDegraded",
  "NoCarrier",
  "AddressConflict",
  "DhcpFailed",
  "StepFailed",
] as const;

/** NetworkReady of a machine that declares no network. */
export const NO_INTERFACES: ConditionPart = {
  status: "True",
  reason: "NoInterfacesDeclared",
  message: "the machine declares no interfaces: its ports are up, and nothing else is configured",
};

type Problem = { readonly reason: (typeof NETWORK_PROBLEMS)[number]; readonly text: string };

export function networkReadyCondition(
  plan: NetworkPlan,
  applied: AppliedNetwork,
  network: ObservedNetwork,
): ConditionPart {
  const problems = [
    ...missing(plan, applied, network),
    ...network.interfaces.flatMap((i) => (i.bond && i.state !== "missing" ? degraded(i) : [])),
    ...dark(plan, network),
    ...conflicts(applied, network),
    ...dhcp(applied),
    ...stepFailures(applied),
  ].sort((a, b) => NETWORK_PROBLEMS.indexOf(a.reason) - NETWORK_PROBLEMS.indexOf(b.reason));
  const [first] = problems;
  if (first)
    return {
      status: "False",
      reason: first.reason,
      message: problems.map((p) => p.text).join("; "),
    };
  if (plan.interfaces.length === 0)
    return plan.nameservers.length > 0
      ? {
          ...NO_INTERFACES,
          message: `the machine declares no interfaces; its nameservers are ${plan.nameservers.join(", ")}`,
        }
      : NO_INTERFACES;
  return {
    status: "True",
    reason: "Configured",
    message: `every declared interface is up with its addresses: ${and(network.interfaces.map((i) => i.name))}`,
  };
}

const DRIVER_HINT =
  "check the NIC's driver with the hardware report, or correct the name in the manifest";

function missing(plan: NetworkPlan, applied: AppliedNetwork, network: ObservedNetwork): Problem[] {
  return plan.interfaces.flatMap((planned, n): Problem[] => {
    const name = planned.declared.name;
    if (planned.kind === "port" && planned.unbuilt)
      return [
        {
          reason: "InterfaceMissing",
          text: `${name} does not exist on this machine; ${DRIVER_HINT}`,
        },
      ];
    if (planned.unbuilt)
      return [
        {
          reason: "InterfaceMissing",
          text: `${name} is not built: ${planned.unbuilt}; ${DRIVER_HINT}`,
        },
      ];
    if (network.interfaces[n]?.state === "missing") {
      const create = applied.outcomes.find(
        (o) => (o.step.op === "create-bond" || o.step.op === "create-vlan") && o.step.name === name,
      );
      const driver = planned.kind === "bond" ? "bonding" : "8021q";
      return [
        {
          reason: "InterfaceMissing",
          text: `${name} was not created${create?.message ? ` (${create.message})` : ""}; check that the release carries the ${driver} driver (its boot-modules.json)`,
        },
      ];
    }
    if (planned.kind === "bond" && planned.missingPorts.length > 0)
      return [
        {
          reason: "InterfaceMissing",
          text: `${name}: its port ${and(planned.missingPorts)} does not exist on this machine; ${DRIVER_HINT}`,
        },
      ];
    return [];
  });
}

// active-backup: a port without carrier; 802.3ad: that, or a port with carrier outside the
// active aggregator (no LACP partner answers on it), or no partner at all.
function degraded(i: ObservedInterface): Problem[] {
  const bond = i.bond!;
  const members = bond.members.filter((m) => m.present);
  const active = members.filter((m) => m.active).map((m) => m.name);
  if (active.length === 0) return []; // no port carries traffic: NoCarrier says why
  const alone = `traffic runs on ${and(active)}${active.length === 1 ? " alone" : " only"}`;
  const parts: string[] = [];
  const dark = members.filter((m) => !m.carrier).map((m) => m.name);
  if (dark.length > 0)
    parts.push(
      `${and(dark)} ${dark.length === 1 ? "has" : "have"} no carrier, ${alone}; check ${dark.map((d) => `${d}'s`).join(" and ")} cable and the switch port`,
    );
  const apart = members.filter((m) => m.carrier && !m.joined).map((m) => m.name);
  if (apart.length > 0)
    parts.push(
      `${and(apart)} did not join ${i.name}, ${alone}; read the boot's network lines on the console`,
    );
  if (bond.mode === "802.3ad") {
    const unpartnered = members.filter(
      (m) => m.carrier && m.joined && (!m.active || !bond.partner),
    );
    if (unpartnered.length > 0)
      parts.push(
        `no LACP partner answers on ${unpartnered.map((m) => m.name).join(" or ")}, ${alone}; check the switch's port-channel configuration`,
      );
  }
  return parts.map((p) => ({ reason: "BondDegraded", text: `${i.name}: ${p}` }));
}

function dark(plan: NetworkPlan, network: ObservedNetwork): Problem[] {
  const down = new Set(network.interfaces.filter((i) => i.state === "down").map((i) => i.name));
  return network.interfaces.flatMap((i, n): Problem[] => {
    if (i.state !== "down") return [];
    if (i.bond)
      return [
        {
          reason: "NoCarrier",
          text: `${i.name} has no carrier: none of its ports ${and(i.bond.members.map((m) => m.name))} has one; connect the cables, or check the switch ports`,
        },
      ];
    // A VLAN on a link that is down itself: the link's part says what to do.
    if (plan.interfaces[n]?.below.some((l) => down.has(l))) return [];
    return [
      {
        reason: "NoCarrier",
        text: `${i.name} has no carrier; connect the cable, or check the switch port`,
      },
    ];
  });
}

function conflicts(applied: AppliedNetwork, network: ObservedNetwork): Problem[] {
  const fix = "find the host that holds it, or give this machine another address in the manifest";
  const v4 = applied.outcomes.flatMap((o): Problem[] =>
    o.step.op === "probe-address" && o.result === "taken"
      ? [
          {
            reason: "AddressConflict",
            text: `${o.step.name}: ${o.step.address} is held by another host${o.holder ? ` (${o.holder})` : ""} and is not configured; ${fix}`,
          },
        ]
      : [],
  );
  const v6 = network.interfaces.flatMap((i) =>
    i.addresses
      .filter((a) => a.dadFailed)
      .map(
        (a): Problem => ({
          reason: "AddressConflict",
          text: `${i.name}: ${a.cidr} is held by another host (IPv6 duplicate address detection failed) and is not used; ${fix}`,
        }),
      ),
  );
  return [...v4, ...v6];
}

function dhcp(applied: AppliedNetwork): Problem[] {
  return applied.outcomes.flatMap((o): Problem[] => {
    if (o.step.op !== "dhcp") return [];
    if (o.result === "no-lease")
      return [
        {
          reason: "DhcpFailed",
          text: `${o.step.name}: no DHCP server answered, and udhcpc keeps asking; check the DHCP server on ${o.step.name}'s network, or declare a static address`,
        },
      ];
    if (o.result === "failed")
      return [
        {
          reason: "DhcpFailed",
          text: `${o.step.name}: DHCP did not start (${o.message}); read the boot's network lines on the console`,
        },
      ];
    return [];
  });
}

// What the other kinds do not already say: a step that failed outright.
function stepFailures(applied: AppliedNetwork): Problem[] {
  const covered = new Set(["create-bond", "create-vlan", "probe-address", "dhcp", "enslave"]);
  return applied.outcomes
    .filter((o: StepOutcome) => o.result === "failed" && !covered.has(o.step.op))
    .map((o) => ({
      reason: "StepFailed",
      text: `${"name" in o.step ? `${o.step.name}: ` : ""}${stepWords(o.step)} failed (${o.message}); read the boot's network lines on the console`,
    }));
}
