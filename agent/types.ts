// The boot agent's values: what it observed at this boot and what it decided, beside the
// state partition's documents it keeps between boots (their home is formats/, the disk's
// contract). Plain data, so the decisions are pure functions (boot-plan.ts, status.ts) and
// tests need no machine.
import type { Slot } from "../formats/boot-entries.ts";
import type { EntryName } from "../formats/entry-name.ts";

export type {
  BootRecord,
  Rejection,
  RejectionReason,
  TrialRecord,
} from "../formats/boot-record.ts";
export { EMPTY_RECORD } from "../formats/boot-record.ts";
export type { CrashRecord } from "../formats/journal-records.ts";
export type { Slot };

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
  | "SignatureNotTrusted"
  /** A downloaded file, or release.toml itself, is not what the spec's release_sha256 vouches for. */
  | "DigestMismatch";

export type RebootPolicy = "Automatic" | "Manual";

export interface Entry extends EntryName {
  readonly fileName: string;
}

/** What a trial's initramfs could not do before it reset the machine (formats/boot-interface.ts). */
export interface InitramfsFailure {
  readonly version: string;
  readonly slot: Slot;
  readonly message: string;
}

/** spec.toml (docs/rollback.md, Name the release to run). */
export interface Spec {
  readonly version: string;
  /** A release directory, relative to the spec's own folder. */
  readonly source: string | null;
  /**
   * `url` and `release_sha256`: the release is fetched over the network, and trusted by
   * the digest (never by the server). Absent with `source`, or with neither.
   */
  readonly download?: SpecDownload;
  /** `reboot = "now"`: the staged release's trial is approved, whatever the reboot policy. */
  readonly rebootNow: boolean;
  /** The storage layout the release expects; empty when the spec names none. */
  readonly storage: readonly SpecStorage[];
}

/** A spec's release on a server (docs/rollback.md, Name the release to run). */
export interface SpecDownload {
  /** An absolute http or https URL of the release folder, ending in `/`. */
  readonly url: string;
  /** The sha256 of the release's release.toml: 64 lower-case hex digits. */
  readonly releaseSha256: string;
}

export interface SpecStorage {
  readonly role: string;
  /** Bytes, or "rest": whatever the disk had left. */
  readonly size: number | "rest";
}
