// The declared network, from what the machine has to what it holds: the links present
// (after the ports' wait), the plan, its steps carried out, the machine read back, and the
// console's lines. The boot agent runs it at every boot and the stick before it sends a
// report; neither stops for what it finds.
import type { NetworkDeclaration } from "../../common/network-declaration.ts";
import { listLinks } from "../../tools/ip.ts";
import { type AppliedNetwork, applyNetwork } from "./apply.ts";
import { networkLines } from "./lines.ts";
import { type ObservedNetwork, observeNetwork } from "./observe.ts";
import { type NetworkPlan, type PresentLink, planNetwork } from "./plan.ts";

export interface BroughtUp {
  readonly plan: NetworkPlan;
  readonly applied: AppliedNetwork;
  readonly network: ObservedNetwork;
  /** One line per interface and per step that did not do its work, for the console. */
  readonly lines: readonly string[];
}

/** Applies `declaration` on this machine. Throws only when ip itself cannot list the links. */
export async function bringUpNetwork(declaration: NetworkDeclaration): Promise<BroughtUp> {
  const present: PresentLink[] = (await listLinks()).map((l) => ({
    name: l.name,
    carrier: l.carrier,
  }));
  const plan = planNetwork(declaration, present);
  const applied = await applyNetwork(plan);
  const network = await observeNetwork(plan);
  return { plan, applied, network, lines: networkLines(plan, applied, network) };
}
