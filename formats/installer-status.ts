// status/installer.json on the state partition, and the install's --status-file: the
// installer's status document (docs/design.md section 7; its reasons in docs/install.md):
// every field a closed enum, a number or a name the manifest already constrains, except the
// sanitized one-line message.
import { sanitizeMessage } from "../common/sanitize.ts";
import { rfc3339 } from "../common/time.ts";
import { withCurrentSpellings } from "./old-spellings.ts";
import { jsonDocumentText, jsonObjectIn } from "./state-partition.ts";

/** Interrupted: stopped by a signal (Ctrl-C) where the same install, run again, finishes. */
export type InstallPhase = "Installing" | "Installed" | "Failed" | "Interrupted";

/** Why an install failed: a closed enum, also used for exit codes and the menu. */
export type InstallFailureReason =
  | "UnknownMachine"
  | "NoEligibleDisk"
  | "DiskNotBlank"
  | "DiskNotLiken"
  | "MirrorMemberMissing"
  | "NoTpm"
  | "RecoveryKeyNowhere"
  | "OtherArch"
  | "DiskTooSmall"
  | "SectorSizeUnsupported"
  | "DiskBusy"
  | "DiskChanged"
  | "MissingDriver"
  | "ReleaseInvalid"
  | "ReleaseTooLarge"
  | "WriteFailed"
  | "VerifyFailed"
  | "ToolMissing"
  | "PermissionDenied";

export interface InstallerStatus {
  readonly apiVersion: "liken.dev/v1";
  readonly kind: "InstallerStatus";
  readonly phase: InstallPhase;
  /** Empty unless the phase is Failed (an interrupted install did not fail). */
  readonly reason: InstallFailureReason | "";
  readonly message: string;
  readonly cluster: string;
  readonly machine: string;
  readonly version: string;
  readonly installId: string;
  /** The last step begun. */
  readonly step: string;
  readonly disks: readonly string[];
  readonly updatedAt: string;
  readonly bootId: string;
}

export function installerStatus(
  fields: Omit<InstallerStatus, "apiVersion" | "kind" | "message" | "updatedAt" | "bootId"> & {
    message: string;
  },
  now: Date,
  bootId: string,
): InstallerStatus {
  return {
    apiVersion: "liken.dev/v1",
    kind: "InstallerStatus",
    ...fields,
    message: sanitizeMessage(fields.message),
    updatedAt: rfc3339(now),
    bootId,
  };
}

export function installerStatusText(status: InstallerStatus): string {
  return jsonDocumentText(status);
}

/**
 * The document as the disk holds it, an older release's spellings read as today's; null
 * when it is not a JSON object. Its fields are not checked: it is shown to people, never
 * acted on.
 */
export function parseInstallerStatus(text: string): InstallerStatus | null {
  const value = jsonObjectIn(text);
  return value ? (withCurrentSpellings(value) as unknown as InstallerStatus) : null;
}
