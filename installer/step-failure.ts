// What an unexpected error inside an install step is reported as: the status reason and
// what to do. Only a failed write is "safe to repeat" as it is; a missing tool or a denied
// open will fail the same way again, and a vanished disk needs a person first.

import type { InstallFailureReason } from "../formats/installer-status.ts";
import { CommandError } from "../tools/exec.ts";

export interface StepFailure {
  readonly reason: InstallFailureReason;
  readonly hint: string;
}

export function stepFailureOf(error: unknown, fallback: InstallFailureReason): StepFailure {
  if (error instanceof CommandError && error.missingPackage) {
    return {
      reason: "ToolMissing",
      hint: `install ${error.missingPackage} (apt-get install ${error.missingPackage}), then run the same install again`,
    };
  }
  switch ((error as NodeJS.ErrnoException | undefined)?.code) {
    case "EACCES":
    case "EPERM":
    case "EROFS":
      return {
        reason: "PermissionDenied",
        hint: "run the install as root, on a disk that is not write-protected",
      };
    case "ENOENT":
    case "ENXIO":
    case "ENODEV":
      return {
        reason: "DiskChanged",
        hint: "a disk went away: check its cables and `liken-stick disks`, then run the same install again",
      };
    case "EIO":
      return {
        reason: "WriteFailed",
        hint: "the disk reported an I/O error: check its health (dmesg), then run the same install again",
      };
    case "ENOSPC":
      return {
        reason: "WriteFailed",
        hint: "the work folder is full: free space in $TMPDIR, then run the same install again",
      };
    default:
      return { reason: fallback, hint: "run the same install again; it is safe to repeat" };
  }
}
