// The conditions the watch keeps in the status document the boot wrote: Downloading,
// StagingFailed, StagingRejected and RebootPending, replaced in that document with its
// updatedAt, each keeping its lastTransitionTime while its status holds (as agent/status.ts
// does at boot). Pure.
import type { Condition, MachineStatus } from "../../formats/machine-status.ts";
import { type DownloadActivity, downloadingCondition } from "../download/downloading.ts";
import {
  keepTransition,
  rebootPendingCondition,
  type StatusInput,
  stagingRejectedCondition,
} from "../status.ts";

/** What the watch knows now that the status document says. */
export interface WatchView {
  readonly activity: DownloadActivity | null;
  /**
   * Why a staged entry could not be written (`WriteFailed`) or withdrawn (`WithdrawFailed`),
   * the message saying what to do; null when none.
   */
  readonly stagingFailed: {
    readonly reason: "WriteFailed" | "WithdrawFailed";
    readonly message: string;
  } | null;
  readonly stagingRejected: StatusInput["stagingRejected"] | null;
  readonly rebootPending: StatusInput["rebootPending"] | null;
}

export function watchConditions(view: WatchView): Omit<Condition, "lastTransitionTime">[] {
  return [
    { type: "Downloading", ...downloadingCondition(view.activity) },
    view.stagingFailed === null
      ? { type: "StagingFailed", status: "False", reason: "NoFailure", message: "" }
      : { type: "StagingFailed", status: "True", ...view.stagingFailed },
    stagingRejectedCondition(view.stagingRejected),
    rebootPendingCondition(view.rebootPending),
  ];
}

/** The boot's document with the watch's conditions in it, updated at `now` (RFC 3339). */
export function withWatchConditions(
  status: MachineStatus,
  view: WatchView,
  now: string,
  phase: MachineStatus["phase"] = status.phase,
): MachineStatus {
  const ours = watchConditions(view).map((c) => keepTransition(status, c, now));
  const kept = status.conditions.filter((c) => !ours.some((o) => o.type === c.type));
  return { ...status, phase, conditions: [...kept, ...ours], updatedAt: now };
}

/** The boot's StagingRejected, which holds until the watch stages another spec. */
export function bootRejection(status: MachineStatus): StatusInput["stagingRejected"] | null {
  const rejected = status.conditions.find((c) => c.type === "StagingRejected");
  if (rejected?.status !== "True") return null;
  type Reason = NonNullable<StatusInput["stagingRejected"]>["reason"];
  return { reason: rejected.reason as Reason, message: rejected.message };
}
