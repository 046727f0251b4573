// The console's account of the declared network, one line per interface and one per step
// that did not do its work, for the caller to print (the boot agent as `liken: network
// ...`, the stick as its own):
//
//     network bond0: 802.3ad, eno1 and eno2 carry traffic
//     network bond0.40: up, 10.0.40.11/24 fd00:40::11/64
//     network eno3: up, 10.0.7.20/24 by DHCP
import type { AppliedNetwork, StepOutcome } from "./apply.ts";
import type { ObservedInterface, ObservedMember, ObservedNetwork } from "./observe.ts";
import type { NetworkPlan, NetworkStep } from "./plan.ts";

export function networkLines(
  plan: NetworkPlan,
  applied: AppliedNetwork,
  network: ObservedNetwork,
): string[] {
  const lines = plan.interfaces.map((planned, n) => {
    const name = planned.declared.name;
    if (planned.unbuilt) return `network ${name}: not built: ${planned.unbuilt}`;
    const seen = network.interfaces[n];
    if (!seen || seen.state === "missing") return `network ${name}: not on this machine`;
    const lease = applied.outcomes.find(
      (o) => o.step.op === "dhcp" && "name" in o.step && o.step.name === name,
    );
    return `network ${name}: ${[stateWords(seen), addressWords(seen, lease)].filter((w) => w).join(", ")}`;
  });
  for (const o of applied.outcomes)
    if (o.result === "failed" || o.result === "taken")
      lines.push(
        `network ${"name" in o.step ? `${o.step.name}: ` : ""}${stepWords(o.step)}: ${o.message}`,
      );
  return lines;
}

function stateWords(i: ObservedInterface): string {
  if (!i.bond) return i.state === "up" ? "up" : i.carrier ? "down" : "no carrier";
  const active = i.bond.members.filter((m) => m.active).map((m) => m.name);
  const idle = i.bond.members
    .filter((m) => !m.active)
    .map((m) => `${m.name} ${idleWords(m, i.bond!.mode)}`);
  const carriers =
    active.length === 0
      ? "no port carries traffic"
      : `${and(active)} ${active.length === 1 ? "carries" : "carry"} traffic`;
  return [`${i.bond.mode}, ${carriers}`, ...idle].join("; ");
}

function idleWords(m: ObservedMember, mode: string): string {
  if (!m.present) return "does not exist";
  if (!m.joined) return "did not join";
  if (!m.carrier) return "has no carrier";
  return mode === "802.3ad" ? "has no LACP partner" : "stands by";
}

function addressWords(i: ObservedInterface, lease: StepOutcome | undefined): string {
  const statics = i.addresses
    .filter((a) => !a.dadFailed && a.cidr !== lease?.lease)
    .map((a) => a.cidr);
  const words = statics.join(" ");
  if (!lease) return words;
  const dhcp =
    lease.result === "done"
      ? `${lease.lease} by DHCP`
      : lease.result === "no-lease"
        ? "no DHCP lease yet"
        : "";
  return [words, dhcp].filter((w) => w).join(" ");
}

/** What a step does, in a few words, for a line that says it did not. */
export function stepWords(step: NetworkStep): string {
  switch (step.op) {
    case "load-module":
      return `loading ${step.module}`;
    case "create-bond":
      return `creating the ${step.mode} bond`;
    case "set-mtu":
      return `MTU ${step.mtu}`;
    case "enslave":
      return `joining ${step.port}`;
    case "set-up":
      return "bringing it up";
    case "await-bond":
      return "waiting for its ports";
    case "create-vlan":
      return `creating VLAN ${step.id} on ${step.link}`;
    case "probe-address":
    case "add-address":
      return step.address;
    case "await-dad":
      return "IPv6 duplicate address detection";
    case "add-route":
      return `route to ${step.to} via ${step.via}`;
    case "dhcp":
      return "DHCP";
    case "write-nameservers":
      return `nameservers ${step.nameservers.join(" ")}`;
  }
}

/** `a`, `a and b`, `a, b and c`. */
export function and(names: readonly string[]): string {
  return names.length <= 1
    ? (names[0] ?? "")
    : `${names.slice(0, -1).join(", ")} and ${names[names.length - 1]}`;
}
