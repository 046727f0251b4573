// The plans the menu offers for every machine of the manifest, from the disks as read: a
// pure function, so the menu's tests plan exactly as the stick does.

import type { Disk } from "../hardware/disks/index.ts";
import type { TpmPresence } from "../hardware/tpm/presence.ts";
import { planInstall, planResultOf } from "../installer/plan/plan-install.ts";
import type { PlanInput } from "../installer/plan/plan-layout.ts";
import type { PlanResult } from "../installer/plan/types.ts";
import { planRepair, survivingMember } from "../installer/repair/plan-repair.ts";
import type { Manifest } from "../manifest/index.ts";
import type { MachinePlans } from "./types.ts";

export function planMachines(
  disks: readonly Disk[],
  manifest: Manifest,
  release: PlanInput["release"],
  newInstallId: () => string,
  /** Where each mirror member's system partitions end (mirror-system-end.ts), by its path. */
  systemEnds: ReadonlyMap<string, number> = new Map(),
  /** The machine's TPM, for [encryption]. */
  tpm: TpmPresence | null = null,
): Record<string, MachinePlans> {
  // Clusters other than this one with liken disks here: a wipe erases theirs only when asked.
  const others = [
    ...new Set(
      disks
        .filter((d) => d.verdict === "liken" && d.claim && d.claim.cluster !== manifest.cluster)
        .map((d) => d.claim?.cluster as string),
    ),
  ].sort();
  const plans: Record<string, MachinePlans> = {};
  for (const m of manifest.machines) {
    // As install plans: the menu's screens show what install would do, or why it would not.
    // The person names no disk, and the claim's start time is the install's to take.
    const plan = (wipe: boolean, wipeClusters: readonly string[] = []) =>
      planResultOf(
        planInstall({
          disks,
          manifest,
          machine: m.name,
          ...(release ? { release } : {}),
          wipe,
          wipeClusters,
          paths: [],
          newInstallId: newInstallId(),
          now: 0,
          tpm,
          // The installed screen shows the recovery key.
          recoveryTo: ["console"],
        }),
      );
    const wipeWith = Object.fromEntries(
      others.map((c) => [c, plan(true, [c])] as const).filter(([c, p]) => erasesCluster(p, c)),
    );
    plans[m.name] = {
      install: plan(false),
      wipe: plan(true),
      wipeWith,
      repair: repairOf(m.name),
    };
  }
  return plans;

  function repairOf(machine: string) {
    const found = survivingMember({ disks, manifest, machine });
    const end = "survivor" in found ? systemEnds.get(found.survivor.path) : undefined;
    return planRepair({
      disks,
      manifest,
      machine,
      ...(end !== undefined ? { survivorSystemEnd: end } : {}),
    });
  }

  // Whether the plan erases a disk of `cluster`: only then is it worth asking for its name.
  function erasesCluster(plan: PlanResult, cluster: string): boolean {
    if (!plan.ok) return false;
    const theirs = new Set(disks.filter((d) => d.claim?.cluster === cluster).map((d) => d.path));
    return plan.layout.disks.some((d) => d.action === "erase-and-write" && theirs.has(d.path));
  }
}
