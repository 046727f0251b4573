// Holds a target disk for the whole install: one lock per disk, whatever path names it. A
// block device is opened with O_EXCL, which the kernel refuses while anything else holds
// the device (a mount, a holder, another installer) through any of its paths; beside it a
// lock file named for its major:minor says that an install holds it, so another install
// can say so rather than call the disk busy. An image file gets a lock file beside its real
// path (symbolic links resolved), taken over when the process that made it is gone.
//
// A lock file holds the pid of the install that made it. The same kind of file keeps two
// installs from writing one status document (status-file.ts).
import {
  constants,
  type FileHandle,
  mkdir,
  open,
  readFile,
  realpath,
  rm,
  stat,
  writeFile,
} from "node:fs/promises";
import { LikenError } from "../common/errors.ts";

/** Where the lock files of block devices go: they are the machine's, not a folder's. */
const BLOCK_LOCKS = "/run/liken/disk-locks";

export interface DiskHandle {
  readonly path: string;
  readonly file: FileHandle;
  release(): Promise<void>;
}

export async function lockDisk(path: string, kind: "block" | "file"): Promise<DiskHandle> {
  const lockFile = await lockFileOf(path, kind);
  const lock = kind === "block" ? await takeBlockLock(lockFile) : await takePidLock(lockFile);
  if ("heldBy" in lock) throw beingWritten(path, lock.heldBy);
  const flags = kind === "block" ? constants.O_RDWR | constants.O_EXCL : constants.O_RDWR;
  const file = await open(path, flags).catch(async (error: NodeJS.ErrnoException) => {
    await lock.release();
    if (error.code !== "EBUSY") throw error;
    throw new LikenError({
      kind: "refused",
      what: `${path} is in use: the kernel refused an exclusive open`,
      hint: "stop what holds it, then run the install again",
      reason: "DiskBusy",
    });
  });
  return {
    path,
    file,
    release: async () => {
      await file.close();
      await lock.release();
    },
  };
}

/**
 * The disks of `disks` that another install holds now, each with its pid: what the planner
 * refuses as DiskBusy, before it mistakes the other install's writes for data.
 */
export async function installsWriting(
  disks: readonly { readonly path: string; readonly kind: "block" | "file" }[],
): Promise<Map<string, number>> {
  const writing = new Map<string, number>();
  for (const d of disks) {
    // A disk whose lock file cannot be named is held by no one this can see.
    const lockFile = await lockFileOf(d.path, d.kind).catch(() => undefined);
    const pid = lockFile && (await lockHolder(lockFile));
    if (pid && pid !== process.pid) writing.set(d.path, pid);
  }
  return writing;
}

/** The refusal of a disk another install holds. */
export function beingWritten(path: string, pid: number): LikenError {
  return new LikenError({
    kind: "refused",
    what: `${path} is being written by another install (process ${pid})`,
    hint: "wait for that install to finish, then run this one again if it is still needed",
    reason: "DiskBusy",
  });
}

// The one lock file of a disk: beside an image file's real path; for a block device, named
// for the device's major:minor, which every path of it shares.
async function lockFileOf(path: string, kind: "block" | "file"): Promise<string> {
  if (kind === "file") return `${await realpath(path)}.liken-lock`;
  const { rdev } = await stat(path, { bigint: true });
  // glibc's major() and minor() of a dev_t.
  const major = ((rdev >> 8n) & 0xfffn) | ((rdev >> 32n) & ~0xfffn);
  const minor = (rdev & 0xffn) | ((rdev >> 12n) & ~0xffn);
  return `${BLOCK_LOCKS}/${major}:${minor}.lock`;
}

// A block device's lock file says who holds it; the kernel's exclusive open is the lock
// itself. Where the file cannot be made (a user of the disk group, without root), the
// exclusive open alone keeps the disk safe.
async function takeBlockLock(lockFile: string): Promise<PidLock> {
  // Without the lock folder the exclusive open alone holds the disk, as said above.
  const made = await mkdir(BLOCK_LOCKS, { recursive: true }).then(
    () => takePidLock(lockFile),
    () => undefined,
  );
  return made ?? { release: async () => undefined };
}

export type PidLock = { readonly release: () => Promise<void> } | { readonly heldBy: number };

/**
 * Makes `lockFile` holding this process's pid, or says which live process holds it. A lock
 * whose process is gone (an install killed part way) is stale and taken over. Errors other
 * than a live holder (a folder that cannot be written) are thrown.
 */
export async function takePidLock(lockFile: string): Promise<PidLock> {
  const release = () => rm(lockFile, { force: true });
  // Twice at most: two installs that find the same stale lock both remove it, and one of
  // them then makes it first; the other finds it held.
  for (let attempt = 1; ; attempt++) {
    const taken = await writeFile(lockFile, `${process.pid}\n`, { flag: "wx" }).then(
      () => true,
      (error: NodeJS.ErrnoException) => {
        if (error.code !== "EEXIST") throw error;
        return false;
      },
    );
    if (taken) return { release };
    const pid = await lockHolder(lockFile);
    if (pid !== undefined) return { heldBy: pid };
    if (attempt > 1)
      throw new LikenError({
        kind: "failed",
        what: `the lock ${lockFile} is held by no live process, yet it could not be taken`,
        hint: `remove ${lockFile} if no install is running, then run the install again`,
      });
    await release();
  }
}

/** The live process that holds `lockFile` (this one too); undefined if none does. */
export async function lockHolder(lockFile: string): Promise<number | undefined> {
  // No lock file, or none readable: no holder.
  const pid = Number((await readFile(lockFile, "utf8").catch(() => "")).trim());
  return pid > 0 && isAlive(pid) ? pid : undefined;
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}
