// An error the system gave (a file that is missing, a permission, a full disk) is not a bug
// in liken-stick: it is said in plain words with what to do, not as Node's errno text with
// a request for a bug report.
import { LikenError } from "../common/errors.ts";
import { describeFileError, findFileError } from "../common/file-errors.ts";

/** `error` as the operator should read it: a file error becomes a LikenError; anything else is kept. */
export function plainError(error: unknown): unknown {
  if (error instanceof LikenError) return error;
  const errno = findFileError(error);
  if (!errno) return error;
  const { what, hint } = describeFileError(errno);
  // The phrases around it say what the command was doing: "writing the ESP: cannot open ...".
  const context: string[] = [];
  for (let e: unknown = error; e instanceof Error && e !== errno; e = e.cause)
    context.push(e.message);
  return new LikenError({
    kind: "failed",
    what: [...context, what].join(": "),
    hint,
    reason: "FileError",
    cause: error,
  });
}
