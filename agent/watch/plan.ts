// What the running machine's watch does next (docs/rollback.md, The agent's watch): given
// the spec in force, the running release, the other slot's staged entries, the download's
// schedule and what became of the target last, one step. Pure: the watch's loop
// (watch.ts) only carries the step out and records how it ended.
import type { SpecReading } from "../boot-plan.ts";
import { nextAttempt, type Schedule, waitMs } from "../download/schedule.ts";
import type { Slot, SpecDownload } from "../types.ts";

/** What a spec asks of the watch; its key changes whenever the spec asks something else. */
export interface Target {
  readonly key: string;
  /** null for a spec that does not parse: staging refuses it (SpecInvalid). */
  readonly version: string | null;
  readonly download: SpecDownload | null;
}

/** A counted entry of the other slot: a release staged for its trial. */
export interface StagedEntry {
  readonly version: string;
  readonly fileName: string;
}

/**
 * What became of a target: `handled` is not repeated until the target changes; `fetch` is
 * staging's word that the release must be downloaded first (stage-release.ts's stageSpec);
 * `withdrawFailed` holds the download until the staged entries are withdrawn; `writeFailed`
 * (a staging that could not write the disk) stages again at `retryAt`, as a new spec.
 */
export type Outcome =
  | { readonly key: string; readonly kind: "handled" | "fetch" }
  | {
      readonly key: string;
      readonly kind: "withdrawFailed" | "writeFailed";
      readonly retryAt: number;
    };

export interface PlanInput {
  readonly target: Target | null;
  readonly running: { readonly slot: Slot; readonly version: string };
  readonly staged: readonly StagedEntry[];
  /** The schedule with this target already set (`scheduleFor`). */
  readonly schedule: Schedule;
  readonly outcome: Outcome | null;
  readonly now: number;
}

export type Plan =
  | { readonly kind: "none" }
  /** The other slot's staged entries go before another release is fetched. */
  | { readonly kind: "withdraw"; readonly fileNames: readonly string[] }
  | { readonly kind: "download"; readonly download: SpecDownload; readonly version: string }
  | { readonly kind: "wait"; readonly ms: number }
  /** Staging as at boot: the spec's source, or the release downloaded for it. */
  | { readonly kind: "stage"; readonly downloaded: boolean };

/** A withdrawal or a staging that could not write is tried again after this long, while StagingFailed holds. */
export const WRITE_RETRY_MS = 30_000;

export function targetOf(reading: SpecReading, text: string | null, folder: string): Target | null {
  switch (reading.kind) {
    case "none":
      return null;
    case "invalid":
      return { key: `invalid ${text ?? ""}`, version: null, download: null };
    case "spec": {
      const { spec } = reading;
      const download = spec.download ?? null;
      const named = download
        ? `url ${download.url} ${download.releaseSha256}`
        : `source ${folder} ${spec.source ?? ""}`;
      return { key: `${spec.version} ${named} ${text ?? ""}`, version: spec.version, download };
    }
  }
}

/** The schedule follows the downloads' target only: another spec of the same url keeps it. */
export function scheduleFor(schedule: Schedule, target: Target | null, now: number): Schedule {
  const key = target?.download
    ? `${target.version} ${target.download.url} ${target.download.releaseSha256}`
    : null;
  return nextAttempt(schedule, { kind: "target", target: key }, now);
}

export function plan(input: PlanInput): Plan {
  const { target, staged, schedule, now } = input;
  if (target === null) return { kind: "none" };
  const last = input.outcome?.key === target.key ? input.outcome : null;
  if (last?.kind === "handled") return { kind: "none" };
  if (last?.kind === "writeFailed" && last.retryAt > now)
    return { kind: "wait", ms: last.retryAt - now };
  // A staging that could not write starts over, as for a new spec.
  const outcome = last?.kind === "writeFailed" ? null : last;
  if (target.version === input.running.version && staged.length === 0) return { kind: "none" };
  // A new spec is staged as at boot first: nothing to do, a refusal, the release already
  // pending, the running version withdrawing what is staged, or a source to write; a url
  // whose release is not here comes back as `fetch`.
  if (outcome === null || target.download === null || target.version === null)
    return { kind: "stage", downloaded: false };
  // Withdraw first: the other slot's staged release goes before another is fetched, and
  // only a written withdrawal lets the download begin.
  const others = staged.filter((e) => e.version !== target.version);
  if (others.length > 0) {
    if (outcome.kind === "withdrawFailed" && outcome.retryAt > now)
      return { kind: "wait", ms: outcome.retryAt - now };
    return { kind: "withdraw", fileNames: others.map((e) => e.fileName) };
  }
  if (schedule.done) return { kind: "stage", downloaded: true };
  const wait = waitMs(schedule, now);
  // No attempt planned and not done: the download gave up (DigestMismatch) until the spec changes.
  if (wait === null) return { kind: "none" };
  if (wait > 0) return { kind: "wait", ms: wait };
  return { kind: "download", download: target.download, version: target.version };
}
