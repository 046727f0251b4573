// The plan a person confirmed (the menu's confirmation screen, `install --plan FILE` from
// `plan --json`) against the plan of the disks as they are now: the install writes only
// what was confirmed. Anything that differs stops it, except what this very install
// already wrote: a disk it claimed on an earlier, interrupted attempt is now `resume`.
import type { Disk } from "../../hardware/disks/types.ts";
import { plannedDiskDrift } from "./disk-drift.ts";
import type { Layout, PlannedDisk } from "./types.ts";

/**
 * What changed on the confirmed plan's disks, read as they are now, or undefined: asked
 * before planning, so data written to a planned disk is named as the change it is, not
 * met as a disk that is no longer blank.
 */
export function confirmedDisksDrift(confirmed: Layout, disks: readonly Disk[]): string | undefined {
  for (const planned of confirmed.disks) {
    const drift = plannedDiskDrift(
      planned,
      disks.find((d) => d.path === planned.path),
      confirmed.installId,
    );
    if (drift) return drift;
  }
  return undefined;
}

/** What differs, in words, or undefined when `now` is the plan that was confirmed. */
export function confirmedPlanDrift(confirmed: Layout, now: Layout): string | undefined {
  for (const key of ["cluster", "machine", "release", "installId", "wipe"] as const) {
    if (confirmed[key] !== now[key]) {
      return `the plan's ${key} was ${confirmed[key]}, now ${now[key]}`;
    }
  }
  if (confirmed.disks.length !== now.disks.length) {
    return `the plan wrote ${confirmed.disks.length} disks, now ${now.disks.length}`;
  }
  for (const [i, was] of confirmed.disks.entries()) {
    const drift = diskDrift(was, now.disks[i] as PlannedDisk, confirmed.installId);
    if (drift) return drift;
  }
  return undefined;
}

function diskDrift(was: PlannedDisk, now: PlannedDisk, installId: string): string | undefined {
  if (was.path !== now.path) return `disk ${was.path} of the plan is now ${now.path}`;
  for (const key of ["serial", "wwn", "size", "sectorSize", "use", "tableId"] as const) {
    if (was[key] !== now[key]) {
      return `${was.path}: its ${key} was ${was[key] ?? "none"}, now ${now[key] ?? "none"}`;
    }
  }
  const ownResume = now.action === "resume" && now.claimInstallId === installId;
  if (!ownResume && (was.action !== now.action || was.claimInstallId !== now.claimInstallId)) {
    const claim = (d: PlannedDisk) => (d.claimInstallId ? ` of install ${d.claimInstallId}` : "");
    return `${was.path}: it was to ${was.action}${claim(was)}, now ${now.action}${claim(now)}`;
  }
  if (partitionsText(was) !== partitionsText(now)) {
    return `${was.path}: its partitions differ from the plan's`;
  }
  return undefined;
}

// The partitions as text with each one's keys sorted: a plan file whose keys a person or a
// tool reordered is the same plan.
function partitionsText(d: PlannedDisk): string {
  return JSON.stringify(
    d.partitions.map((p) =>
      Object.fromEntries(Object.entries(p).sort(([a], [b]) => (a < b ? -1 : 1))),
    ),
  );
}
