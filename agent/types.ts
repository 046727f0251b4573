// The boot agent's values: what it observed at this boot, what it keeps on the state
// partition between boots, and what it decided. Plain data, so the decisions are pure
// functions (boot-plan.ts, status.ts) and tests need no machine.
import type { Slot } from "../formats/boot-entries.ts";
import type { EntryName } from "../formats/entry-name.ts";

export type { CrashRecord } from "../formats/journal-records.ts";
export type { Slot };

/** Why a trial boot was rejected (docs/rollback.md, How a failed trial returns). */
export type RejectionReason =
  | "HealthCheckFailed"
  | "Crashed"
  | "NoBootComplete"
  | "BootImageRefused";

/** Why the spec's release is not staged. */
export type StagingRejectedReason =
  | "VersionRejected"
  | "StorageShrink"
  | "MissingDriver"
  | "SpecInvalid"
  | "ReleaseNotFound"
  | "ReleaseInvalid"
  | "SlotTooSmall"
  | "VerifyFailed"
  | "WriteFailed"
  | "SignatureNotTrusted";

export type RebootPolicy = "Automatic" | "Manual";

export interface Entry extends EntryName {
  readonly fileName: string;
}

/** What the trial boot wrote on the state partition before and after its health checks. */
export interface TrialRecord {
  readonly version: string;
  readonly slot: Slot;
  readonly bootId: string;
  readonly startedAt: string;
  /** Started: the checks began and nothing finished; the others are final. */
  readonly outcome: "Started" | "HealthCheckFailed" | "Blessed";
  readonly message: string;
}

/** status.boot.systemRejection: the trial the machine turned away. */
export interface Rejection {
  readonly version: string;
  readonly slot: Slot;
  readonly reason: RejectionReason;
  /** Boots of the rejected entry (systemd-boot's tries done). */
  readonly attempts: number;
  readonly time: string;
  readonly message: string;
}

/** What a trial's initramfs could not do before it reset the machine (formats/boot-interface.ts). */
export interface InitramfsFailure {
  readonly version: string;
  readonly slot: Slot;
  readonly message: string;
}

/** boot/record.json on the state partition: the agent's memory between boots. */
export interface BootRecord {
  readonly trial: TrialRecord | null;
  readonly rejection: Rejection | null;
}

export const EMPTY_RECORD: BootRecord = { trial: null, rejection: null };

/** spec.toml (docs/rollback.md, Name the release to run). */
export interface Spec {
  readonly version: string;
  /** A release directory, relative to the spec's own folder. */
  readonly source: string | null;
  /** `reboot = "now"`: the staged release's trial is approved, whatever the reboot policy. */
  readonly rebootNow: boolean;
  /** The storage layout the release expects; empty when the spec names none. */
  readonly storage: readonly SpecStorage[];
}

export interface SpecStorage {
  readonly role: string;
  /** Bytes, or "rest": whatever the disk had left. */
  readonly size: number | "rest";
}
