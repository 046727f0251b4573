// The steps of an install as the progress screen lists them: the installer's own list
// (installer/steps.ts) for the confirmed layout, moved along by the installer's events.
import type { InstallEvent } from "../installer/install.ts";
import type { Layout } from "../installer/plan/types.ts";
import { installSteps } from "../installer/steps.ts";
import type { InstallRun, StepLine, StepState } from "./types.ts";

/** A new attempt: every step pending, in the order install() runs them (installer/steps.ts). */
export function startRun(
  machine: string,
  wipe: boolean,
  wipeClusters: readonly string[],
  release: string,
  layout: Layout,
) {
  const erased = layout.disks.filter((d) => d.action === "erase-and-write").map((d) => d.path);
  const run: InstallRun = {
    machine,
    wipe,
    wipeClusters,
    release,
    layout,
    steps: installSteps(release, erased).map(({ step, what }) => ({
      step,
      what,
      state: "pending",
    })),
  };
  return run;
}

/** The run after one of the installer's events: the running step is done, the named one runs. */
export function applyEvent(run: InstallRun, event: InstallEvent, at: number): InstallRun {
  if (event.type === "progress") {
    const startedAt = run.slot?.startedAt ?? at;
    return { ...run, slot: { done: event.done, total: event.total, startedAt, at } };
  }
  const steps = finishRunning(run.steps, "done");
  const index = steps.findIndex((s) => s.step === event.step && s.state === "pending");
  const line: StepLine = { step: event.step, what: event.what, state: "running" };
  const next = index >= 0 ? steps.map((s, i) => (i === index ? line : s)) : [...steps, line];
  const slot = event.step === "slot" ? { done: 0, total: 0, startedAt: at, at } : run.slot;
  return { ...run, steps: next, ...(slot ? { slot } : {}) };
}

/** The run when install() returned: the running step is done. */
export function finishRun(run: InstallRun): InstallRun {
  return { ...run, steps: finishRunning(run.steps, "done") };
}

/** The run when install() threw: the running step failed. */
export function failRun(run: InstallRun): InstallRun {
  return { ...run, steps: finishRunning(run.steps, "failed") };
}

/** The step that failed, if one was running. */
export function failedStep(run: InstallRun): StepLine | undefined {
  return run.steps.find((s) => s.state === "failed");
}

function finishRunning(steps: readonly StepLine[], state: StepState): StepLine[] {
  return steps.map((s) => (s.state === "running" ? { ...s, state } : s));
}
