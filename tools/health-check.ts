// A release's health check (docs/rollback.md, What a release's root does): an executable
// that exits 0 when healthy; otherwise the last line it printed says why.
import { CommandError, run } from "./exec.ts";

export type CheckResult =
  | { readonly kind: "ok" }
  | { readonly kind: "failed"; readonly exitCode: number | null; readonly lastLine: string }
  | { readonly kind: "timeout" };

const EVERY_FAILURE = Array.from({ length: 255 }, (_, i) => i + 1);

export async function runCheck(path: string, timeoutMs: number): Promise<CheckResult> {
  try {
    const result = await run(path, [], { timeoutMs, okExitCodes: EVERY_FAILURE });
    if (result.exitCode === 0) return { kind: "ok" };
    return {
      kind: "failed",
      exitCode: result.exitCode,
      lastLine: lastLine(`${result.stdout}\n${result.stderr}`),
    };
  } catch (error) {
    if (error instanceof CommandError && error.timedOut) return { kind: "timeout" };
    return {
      kind: "failed",
      exitCode: null,
      lastLine: (error as Error).message.split("\n")[0] ?? "",
    };
  }
}

function lastLine(text: string): string {
  return (
    text
      .split("\n")
      .map((l) => l.trim())
      .filter((l) => l !== "")
      .pop() ?? ""
  );
}
