// A verb's progress on stderr (common/progress.ts): redrawn with a bar on a terminal, whole
// lines in a log. stdout stays the verb's result alone.
import { createProgress, type Progress } from "../common/progress.ts";
import type { Io } from "./verb.ts";

export function verbProgress(verb: string, io: Io): Progress {
  return createProgress(`liken-stick ${verb}`, {
    write: io.err,
    ...(process.stderr.isTTY ? { columns: process.stderr.columns || 80 } : {}),
  });
}
