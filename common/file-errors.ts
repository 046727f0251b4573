// Why a file or folder could not be read, in plain words: the operator reads "does not
// exist" or "is a folder", never Node's `EISDIR: illegal operation on a directory, read`.

/**
 * `PATH does not exist`, `PATH is a folder, not a file`, ...: what stopped a read of `path`,
 * which was meant to be `meant` ("a file" or "a folder").
 */
export function cannotRead(path: string, error: unknown, meant: "a file" | "a folder"): string {
  const e = error as NodeJS.ErrnoException | undefined;
  switch (e?.code) {
    case "ENOENT":
      return `${path} does not exist`;
    case "EISDIR":
      return `${path} is a folder, not a file`;
    case "ENOTDIR":
      return meant === "a folder"
        ? `${path} is not a folder`
        : `${path} does not exist (a part of its path is a file, not a folder)`;
    case "EACCES":
    case "EPERM":
      return `${path} may not be read by this user (permission denied)`;
    case "ELOOP":
      return `${path} is a loop of symbolic links`;
    case "ENAMETOOLONG":
      return `${path} is a name longer than the system allows`;
    case "EIO":
      return `${path} could not be read: the disk under it reported an I/O error`;
    default: {
      // Node's text after its code: "EMFILE: too many open files, open 'x'" → "too many open files".
      const words = (e?.message ?? String(error))
        .replace(/^[A-Z]+: /, "")
        .replace(/, \w+ '.*'$/, "");
      return `${path} could not be read: ${words}`;
    }
  }
}
