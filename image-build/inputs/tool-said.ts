// The one line of a failed tool's stderr worth quoting in a build error.
import { CommandError } from "../../tools/exec.ts";

/** `: <the tool's error line>` for a failed command (apt prints its reason on an `E:` line). */
export function toolSaid(error: unknown): string {
  if (!(error instanceof CommandError) || !error.stderrTail) return "";
  const lines = error.stderrTail.split("\n");
  return `: ${lines.filter((l) => l.startsWith("E:")).at(-1) ?? lines.at(-1)}`;
}
