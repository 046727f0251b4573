// Where the installer's status document goes, and the hold an install keeps on it while it
// runs (docs/install.md, When an install fails). On the stick it is one file that the menu,
// the unattended install and its report read. Elsewhere an install of an image file keeps
// it beside that file: the install must be able to write there already (the disk's lock
// file goes there), it needs no root, and two installs of two files never share one.
import { mkdir, stat } from "node:fs/promises";
import { dirname } from "node:path";
import { LikenError } from "../common/errors.ts";
import { STICK_RUN } from "../formats/stick-payload.ts";
import { takePidLock } from "./lock.ts";

/**
 * The status file of an install that was not given one: the stick's on the stick; beside the
 * first disk named when it is an image file (`disk.img.install-status.json`); else the
 * stick's path, which only root may write, as only root writes a block device.
 */
export async function defaultStatusFile(
  paths: readonly string[],
  onStick: boolean,
): Promise<string> {
  const [first] = paths;
  if (onStick || first === undefined) return STICK_RUN.installStatus;
  // A path that is not there is no image file: the status goes to the stick's default.
  const isFile = await stat(first).then(
    (s) => s.isFile(),
    () => false,
  );
  return isFile ? `${first}.install-status.json` : STICK_RUN.installStatus;
}

export type StatusHold =
  | { readonly release: () => Promise<void> }
  | { readonly problem: LikenError };

/**
 * Holds `file` for this install: a lock file beside it names this process, so no other
 * install writes the same document while this one runs. When the file cannot be held (its
 * folder cannot be written, another install holds it), the problem is returned, not
 * thrown: the install's own refusal, found while planning, must not be hidden by it.
 */
export async function holdStatusFile(file: string): Promise<StatusHold> {
  const lock = await mkdir(dirname(file), { recursive: true })
    .then(() => takePidLock(`${file}.lock`))
    .catch((error: NodeJS.ErrnoException) => ({ error }));
  if ("release" in lock) return lock;
  if ("heldBy" in lock)
    return {
      problem: new LikenError({
        kind: "refused",
        what: `another install (process ${lock.heldBy}) is writing its status to ${file}`,
        hint: "wait for it to finish, or give this install its own --status-file",
        reason: "DiskBusy",
      }),
    };
  return {
    problem: new LikenError({
      kind: "refused",
      what: `the install's status cannot be written to ${file}: ${whyNot(lock.error)}`,
      hint: "give --status-file a file in a folder this user may write",
      reason: "PermissionDenied",
      cause: lock.error,
    }),
  };
}

// The system's reason in words, about the folder the status goes in.
function whyNot(error: NodeJS.ErrnoException): string {
  const folder = dirname(error.path ?? "");
  switch (error.code) {
    case "EACCES":
    case "EPERM":
      return `this user may not write ${folder}`;
    case "ENOENT":
      return `the folder ${folder} does not exist`;
    case "ENOTDIR":
      return `a part of ${folder} is not a folder`;
    case "EROFS":
      return `${folder} is on a read-only filesystem`;
    case "ENOSPC":
      return `no space is left in ${folder}`;
    default:
      return error.message;
  }
}
