// A disk of a plan against the same disk as it is read now: whether it is still the disk
// the plan was made for, in the state the plan's action needs. The install asks it of a
// confirmed plan's disks before it plans (plan-install.ts), and of its targets once it holds
// them (install.ts); the answer names what changed, for the operator.
import type { Disk } from "../../hardware/disks/types.ts";
import type { PlannedDisk } from "./types.ts";

/**
 * What changed on `planned`, in words, or undefined when it is as the plan saw it. A disk
 * this very install claimed on an earlier, interrupted attempt (`installId`) is as planned.
 */
export function plannedDiskDrift(
  planned: PlannedDisk,
  now: Disk | undefined,
  installId: string,
): string | undefined {
  const { path } = planned;
  if (!now) return `${path} is gone`;
  const identity: [string, unknown, unknown][] = [
    ["serial", planned.serial, now.serial],
    ["WWN", planned.wwn, now.wwn],
    ["size", planned.size, now.size],
    ["sector size", planned.sectorSize, now.logicalSectorSize],
  ];
  for (const [what, was, is] of identity) {
    if (was !== is) return `${path}: its ${what} was ${was ?? "none"}, now ${is ?? "none"}`;
  }
  const ownClaim = now.verdict === "liken" && now.claim?.installId === installId;
  if (ownClaim) return undefined;
  const expected = planned.action === "write" ? "blank" : "liken";
  if (now.verdict !== expected) {
    return `${path} was ${describePlanned(planned)}, now it is ${now.verdict} (${now.reasons.join(", ")})`;
  }
  if (now.claim?.installId !== planned.claimInstallId) {
    return `${path}: its claim was install ${planned.claimInstallId ?? "none"}, now install ${now.claim?.installId ?? "none"}`;
  }
  return undefined;
}

function describePlanned(planned: PlannedDisk): string {
  return planned.action === "write"
    ? "blank"
    : `liken (install ${planned.claimInstallId ?? "unknown"})`;
}
