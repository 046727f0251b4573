// Holds a target disk for the whole install. A block device is opened with O_EXCL, which
// the kernel refuses while anything else holds it (a mount, a holder, another installer)
// and which keeps everyone else out until we close it. An image file gets a lock file
// beside it, taken over when the process that made it is gone.
import { constants, type FileHandle, open, readFile, rm, writeFile } from "node:fs/promises";
import { LikenError } from "../common/errors.ts";

export interface DiskHandle {
  readonly path: string;
  readonly file: FileHandle;
  release(): Promise<void>;
}

export async function lockDisk(path: string, kind: "block" | "file"): Promise<DiskHandle> {
  const busy = (why: string) =>
    new LikenError({
      kind: "refused",
      what: `${path} is in use: ${why}`,
      hint: "stop what holds it, then run the install again",
      reason: "DiskBusy",
    });
  if (kind === "block") {
    const file = await open(path, constants.O_RDWR | constants.O_EXCL).catch(
      (error: NodeJS.ErrnoException) => {
        throw error.code === "EBUSY" ? busy("the kernel refused an exclusive open") : error;
      },
    );
    return { path, file, release: () => file.close() };
  }
  const lockFile = `${path}.liken-lock`;
  const takeLock = () => writeFile(lockFile, `${process.pid}\n`, { flag: "wx" });
  await takeLock().catch(async (error: NodeJS.ErrnoException) => {
    if (error.code !== "EEXIST") throw error;
    const pid = Number((await readFile(lockFile, "utf8").catch(() => "")).trim());
    if (pid > 0 && pid !== process.pid && isAlive(pid))
      throw busy(`install process ${pid} holds ${lockFile}`);
    // The process that left the lock is gone (killed mid-install): the lock is stale.
    await rm(lockFile, { force: true });
    await takeLock();
  });
  const file = await open(path, constants.O_RDWR);
  return {
    path,
    file,
    release: async () => {
      await file.close();
      await rm(lockFile, { force: true });
    },
  };
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}
