// The condition `Downloading` of the status document and the console's line per retry
// (docs/troubleshoot.md, The machine does not move to the new release): True while the
// machine fetches or verifies a release, or waits to retry, its message giving the bytes
// done of the total, the last failure's reason and the next retry's time. Pure.
import { formatSizeShort } from "../../common/size.ts";
import { rfc3339 } from "../../common/time.ts";
import type { ConditionPart } from "../declared-modules.ts";
import type { Schedule } from "./schedule.ts";

/** A download under way: an attempt fetching or verifying, or a wait before the next. */
export interface DownloadActivity {
  readonly version: string;
  readonly step: "fetching" | "verifying" | "waiting";
  /** Bytes fetched (verifying: checked) over all the release's files. */
  readonly done: number;
  /** The release's size, once its release.toml is read; null before. */
  readonly total: number | null;
  readonly schedule: Schedule;
}

const REASONS = { fetching: "Fetching", verifying: "Verifying", waiting: "WaitingToRetry" };

/**
 * `Downloading` for the status document; `null` when no download is under way. Idle is
 * False `Done`, not an absent condition: every condition the document knows is written at
 * every write, True or False (agent/status.ts), so a reader tells "nothing to fetch" from
 * "an agent that knows no download", and the False's lastTransitionTime says when the last
 * download ended. Why a download stopped for good (DigestMismatch) is StagingRejected's.
 */
export function downloadingCondition(activity: DownloadActivity | null): ConditionPart {
  if (activity === null) return { status: "False", reason: "Done", message: "" };
  const { version, step, schedule } = activity;
  const failed = schedule.lastFailure ? `; the last attempt failed: ${schedule.lastFailure}` : "";
  const message =
    step === "fetching"
      ? `fetching release ${version}: ${bytes(activity)}${failed}`
      : step === "verifying"
        ? `verifying release ${version} against its release.toml: ${bytes(activity)} checked`
        : `release ${version}: ${bytes(activity)} fetched${failed}; ${nextRetry(schedule)}`;
  return { status: "True", reason: REASONS[step], message };
}

/**
 * The console's line after a failed attempt that will be retried:
 * `download of 2.0.0 failed (no bytes for 60 s); retry 2 at 2026-12-05T10:00:40Z`.
 * The agent prints it with its `liken: ` prefix.
 */
export function retryLine(version: string, schedule: Schedule): string {
  return `download of ${version} failed (${schedule.lastFailure ?? "no reason given"}); ${nextRetry(schedule)}`;
}

/** The console's line when a download stops for good: no retry until the spec changes. */
export function gaveUpLine(version: string, why: string): string {
  return `download of ${version} stopped: ${why}; no retry until the spec names another release or digest`;
}

// Retry N is the attempt after the Nth failure.
function nextRetry(schedule: Schedule): string {
  return schedule.nextAt === null
    ? "no retry planned"
    : `retry ${schedule.failures} at ${rfc3339(new Date(schedule.nextAt))}`;
}

function bytes({ done, total }: DownloadActivity): string {
  if (total === null) return `${done} bytes (reading release.toml)`;
  return `${done} of ${total} bytes (${formatSizeShort(done)} of ${formatSizeShort(total)})`;
}
