// The steps of an install, once: their order, the words the console, the status document
// and the menu's progress screen show, and the status reason an unexpected error in each
// one is reported with. The installer runs the steps installSteps() lists for its plan;
// the menu lists the same before the install starts.
import type { InstallFailureReason } from "../formats/installer-status.ts";

export type InstallStep =
  | "preflight"
  | "plan"
  | "lock"
  | "erase"
  | "claim"
  | "partition"
  | "esp"
  | "slot"
  | "journal"
  | "storage"
  | "state"
  | "complete";

interface StepSpec {
  readonly step: InstallStep;
  /** The words for the step; erase is per disk and names it, slot names the release. */
  readonly what: (detail: { readonly disk: string; readonly release: string }) => string;
  /** What an error that is not already a LikenError is reported as. */
  readonly failure: InstallFailureReason;
}

// The order is the order of the writes that keeps every disk `blank` or `liken` when the
// installer is killed (docs/install.md): the claim first, its complete flag last, the state
// (which says Installed) just before it.
const STEPS: readonly StepSpec[] = [
  { step: "preflight", what: () => "verifying the release", failure: "WriteFailed" },
  { step: "plan", what: () => "planning the layout", failure: "WriteFailed" },
  { step: "lock", what: () => "locking the target disks", failure: "WriteFailed" },
  { step: "erase", what: (d) => `erasing the liken install on ${d.disk}`, failure: "WriteFailed" },
  { step: "claim", what: () => "writing the liken claim", failure: "WriteFailed" },
  { step: "partition", what: () => "writing the partition tables", failure: "WriteFailed" },
  { step: "esp", what: () => "writing the ESP", failure: "WriteFailed" },
  { step: "slot", what: (d) => `writing release ${d.release} into slot A`, failure: "WriteFailed" },
  { step: "journal", what: () => "writing the crash journal", failure: "WriteFailed" },
  { step: "storage", what: () => "clearing the storage role partitions", failure: "WriteFailed" },
  { step: "state", what: () => "writing the state partition", failure: "WriteFailed" },
  { step: "complete", what: () => "marking the install complete", failure: "WriteFailed" },
];

/** One step of one install: what it is called, and the disk it acts on (erase). */
export interface PlannedStep {
  readonly step: InstallStep;
  readonly what: string;
  /** The disk an erase step erases. */
  readonly disk?: string;
  readonly failure: InstallFailureReason;
}

/**
 * Every step an install runs, in order: one erase step for each disk named in `erased`
 * (wipe and reinstall), the others once.
 */
export function installSteps(release: string, erased: readonly string[]): PlannedStep[] {
  return STEPS.flatMap((spec) => {
    const disks = spec.step === "erase" ? erased : [""];
    return disks.map((disk) => ({
      step: spec.step,
      what: spec.what({ disk, release }),
      ...(spec.step === "erase" ? { disk } : {}),
      failure: spec.failure,
    }));
  });
}

/** The step `step` of an install that erases nothing (for the steps before a plan exists). */
export function stepOf(step: InstallStep, release: string): PlannedStep {
  const found = installSteps(release, []).find((s) => s.step === step);
  if (!found) throw new Error(`no step ${step} outside an erase`);
  return found;
}
