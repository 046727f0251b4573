// The declared ports' outcome at boot (docs/rollback.md, The network ports): the condition
// PortsReady from what each port did in its wait. Pure.
import { PORT_WAIT_MS, type PortOutcome } from "../hardware/network/ports-up.ts";
import type { ConditionPart } from "./declared-modules.ts";

export function portsCondition(
  outcomes: readonly PortOutcome[],
  present: readonly string[],
): ConditionPart {
  if (outcomes.length === 0)
    return { status: "True", reason: "NoPortsDeclared", message: "the machine declares no ports" };
  const missing = outcomes.filter((o) => o.kind === "missing").map((o) => o.port);
  const dark = outcomes.filter((o) => o.kind === "no-carrier").map((o) => o.port);
  const parts: string[] = [];
  if (missing.length > 0)
    parts.push(
      `${list(missing)} ${missing.length === 1 ? "does" : "do"} not exist on this machine (its interfaces: ${present.length > 0 ? present.join(", ") : "none"}); correct the name in the manifest, or check the NIC's driver with the hardware report`,
    );
  if (dark.length > 0)
    parts.push(
      `${list(dark)} ${dark.length === 1 ? "has" : "have"} no carrier after ${PORT_WAIT_MS / 1000} s; connect the cable, or remove the port from the manifest`,
    );
  if (parts.length === 0)
    return {
      status: "True",
      reason: "Carrier",
      message: `every declared port has carrier: ${list(outcomes.map((o) => o.port))}`,
    };
  return {
    status: "False",
    reason: missing.length > 0 ? "PortMissing" : "PortWithoutCarrier",
    message: parts.join("; "),
  };
}

function list(names: readonly string[]): string {
  return names.join(", ");
}
