// What stopped a read or a write of a file, in plain words: the operator reads "does not
// exist" or "is a folder", never Node's `EISDIR: illegal operation on a directory, read`
// alone.

type Errno = NodeJS.ErrnoException;

/**
 * `PATH does not exist`, `PATH is a folder, not a file`, ...: what stopped a read of `path`,
 * which was meant to be `meant` ("a file" or "a folder").
 */
export function cannotRead(path: string, error: unknown, meant: "a file" | "a folder"): string {
  return `${path} ${readProblem(error, meant)}`;
}

/** What cannotRead says after the path: "does not exist", "is a folder, not a file", ... */
export function readProblem(error: unknown, meant: "a file" | "a folder"): string {
  const code = (error as Errno | undefined)?.code;
  if (code === "ENOENT") return "does not exist";
  if (code === "EISDIR") return "is a folder, not a file";
  if (code === "ENOTDIR")
    return meant === "a folder"
      ? "is not a folder"
      : "does not exist (a part of its path is a file, not a folder)";
  return `could not be read: ${why(error as Errno)}`;
}

/** The error, or the first of its causes, that the system gave with a code and a path. */
export function findFileError(error: unknown): Errno | undefined {
  for (let e: unknown = error; e instanceof Error; e = e.cause) {
    const errno = e as Errno;
    if (typeof errno.code === "string" && /^E[A-Z]+$/.test(errno.code) && errno.syscall)
      return errno;
  }
  return undefined;
}

/** `cannot create the folder /run/liken: permission denied`, and what to do about it. */
export function describeFileError(error: Errno): { what: string; hint: string } {
  const action = ACTIONS[error.syscall ?? ""] ?? `${error.syscall ?? "use"}`;
  const path = error.path ?? "a file";
  return { what: `cannot ${action} ${path}: ${why(error)}`, hint: HINTS[error.code ?? ""] ?? HINT };
}

// The system call as what the command was doing.
const ACTIONS: Readonly<Record<string, string>> = {
  open: "open",
  read: "read",
  write: "write",
  mkdir: "create the folder",
  rmdir: "remove the folder",
  unlink: "remove",
  rename: "rename",
  scandir: "list the folder",
  opendir: "list the folder",
  stat: "look at",
  lstat: "look at",
  access: "look at",
  copyfile: "copy",
  chmod: "change the mode of",
  fsync: "flush",
  symlink: "link",
  realpath: "find",
};

const WHY: Readonly<Record<string, string>> = {
  ENOENT: "it does not exist",
  EISDIR: "it is a folder",
  ENOTDIR: "a part of its path is not a folder",
  EACCES: "permission denied",
  EPERM: "the system does not permit it",
  EROFS: "its filesystem is read-only",
  ENOSPC: "no space is left on its filesystem",
  EDQUOT: "the disk quota is used up",
  EEXIST: "it exists already",
  EBUSY: "something else is using it",
  ELOOP: "its symbolic links form a loop",
  ENAMETOOLONG: "the name is too long",
  EIO: "the device reported an I/O error",
  EMFILE: "too many files are open",
  ENXIO: "the device is not there",
  ENODEV: "the device is not there",
};

const HINTS: Readonly<Record<string, string>> = {
  ENOENT: "check the path",
  EISDIR: "name a file inside it",
  ENOTDIR: "check the path",
  EACCES: "run it as a user that may (root), or choose a path this user may use",
  EPERM: "run it as root, or choose another path",
  EROFS: "choose a place on a writable filesystem",
  ENOSPC: "free some space, or choose another place",
  EDQUOT: "free some space, or choose another place",
  EBUSY: "stop what uses it, then run it again",
  EIO: "check the device's health (dmesg), then run it again",
};

const HINT = "check the path and the disk under it, then run it again";

function why(error: Errno | undefined): string {
  const known = WHY[error?.code ?? ""];
  if (known) return known;
  // Node's words after the code, without the call and path it repeats: "EMLINK: too many links, link 'a'".
  const words = (error?.message ?? String(error))
    .replace(/^E[A-Z]+: /, "")
    .replace(/, \w+ '.*$/, "");
  return error?.code ? `${words} (${error.code})` : words;
}
