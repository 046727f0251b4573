// The install's policy, decided before anything is written and without I/O: whether this
// machine is already installed, whether a wipe meets data liken did not write, the layout,
// the claim every disk gets, and the steps that write it. The installer (install.ts) runs
// what this returns and nothing else.
import type { Claim } from "../../formats/claim.ts";
import type { Disk } from "../../hardware/disks/types.ts";
import { installSteps, type PlannedStep } from "../steps.ts";
import { type PlanInput, planLayout } from "./plan-layout.ts";
import type { Layout, PlanFailure } from "./types.ts";

export interface InstallPlanInput extends PlanInput {
  /** The paths the operator named; empty means every disk of the machine. */
  readonly paths: readonly string[];
  /** The release being installed (already verified). */
  readonly release: { readonly version: string; readonly rootfsSize: number };
  /** Now, in seconds since the epoch: a fresh install's start time. */
  readonly now: number;
}

/** The claim of an install without its per-disk fields. */
export type InstallClaim = Omit<Claim, "use" | "complete" | "generation">;

export type InstallPlan =
  | {
      readonly kind: "install";
      readonly layout: Layout;
      readonly claim: InstallClaim;
      /** From lock to complete: what runs once the layout is planned. */
      readonly steps: readonly PlannedStep[];
    }
  /** This machine's complete install of this release is on `disk`: nothing to write. */
  | { readonly kind: "done"; readonly disk: Disk }
  | { readonly kind: "refused"; readonly failure: PlanFailure };

export function planInstall(input: InstallPlanInput): InstallPlan {
  const done = findCompleteInstall(input);
  if (done) return done;
  const foreign = input.wipe
    ? input.disks.filter((d) => d.verdict === "foreign" && input.paths.includes(d.path))
    : [];
  if (foreign.length > 0) {
    // Wipe and reinstall names disks to erase: one that holds data liken did not write stops it all.
    const list = foreign.map((d) => `${d.path} (${d.reasons.join(", ")})`).join("; ");
    return refused({
      reason: "DiskNotLiken",
      message: `wipe and reinstall refuses disks holding data liken did not write: ${list}`,
      hint: "leave those disks out; liken erases only disks it wrote",
      considered: [],
    });
  }
  const result = planLayout(input);
  if (!result.ok) return refused(result.failure);
  const { layout } = result;
  // A resumed install keeps its start time.
  const resumed = input.disks.find((d) => d.claim?.installId === layout.installId);
  const createdAt = resumed?.claim ? Date.parse(resumed.claim.createdAt) / 1000 : input.now;
  const erased = layout.disks.filter((d) => d.action === "erase-and-write").map((d) => d.path);
  const steps = installSteps(layout.release, erased).filter(
    (s) => s.step !== "preflight" && s.step !== "plan",
  );
  return {
    kind: "install",
    layout,
    claim: {
      cluster: layout.cluster,
      machine: layout.machine,
      installId: layout.installId,
      release: layout.release,
      createdAt,
    },
    steps,
  };
}

// A complete install of this machine: the same release is done; another needs a wipe.
function findCompleteInstall(input: InstallPlanInput): InstallPlan | undefined {
  if (input.wipe) return undefined;
  const done = input.disks.find(
    (d) =>
      d.verdict === "liken" &&
      d.claim?.complete &&
      d.claim.use === "system" &&
      d.claim.cluster === input.manifest.cluster &&
      d.claim.machine === input.machine,
  );
  if (!done) return undefined;
  // An install killed while it marked its disks complete is finished, not done.
  const unfinished = input.disks.some(
    (d) =>
      d.verdict === "liken" && d.claim?.installId === done.claim?.installId && !d.claim?.complete,
  );
  if (unfinished) return undefined;
  if (done.claim?.release === input.release.version) return { kind: "done", disk: done };
  return refused({
    reason: "DiskNotBlank",
    message: `${done.path} holds release ${done.claim?.release} of ${input.machine}`,
    hint: `use wipe and reinstall to install ${input.release.version}`,
    considered: [],
  });
}

function refused(failure: PlanFailure): InstallPlan {
  return { kind: "refused", failure };
}
