// Runs the bundled command (built once per test run by test/global-setup.ts, with the
// kill points of test/kill-points.ts) the way an operator does, and returns what it
// printed and how it ended.
import { join } from "node:path";
import { repoRoot } from "../common/repo-root.ts";
import { bundleEntry } from "../image-build/bundle.ts";
import { CommandError, run } from "../tools/exec.ts";

export const BUNDLE = join(repoRoot(), "dist/liken-stick-test.cjs");

/** Bundles test/cli-entry.ts, the command with the kill points, into BUNDLE. */
export function bundleTestCommand(): Promise<string> {
  return bundleEntry(join(repoRoot(), "test/cli-entry.ts"), BUNDLE);
}

export interface CliResult {
  readonly stdout: string;
  readonly stderr: string;
  /** The exit code, or the signal that killed it ("SIGKILL"). */
  readonly code: number | string;
}

export async function cli(
  args: readonly string[],
  options: { cwd?: string; env?: Record<string, string> } = {},
): Promise<CliResult> {
  try {
    const r = await run(process.execPath, [BUNDLE, ...args], {
      okExitCodes: [1, 2],
      timeoutMs: 300_000,
      ...(options.cwd ? { cwd: options.cwd } : {}),
      ...(options.env ? { env: { ...process.env, ...options.env } as Record<string, string> } : {}),
    });
    return { stdout: r.stdout, stderr: r.stderr, code: r.exitCode };
  } catch (error) {
    if (error instanceof CommandError && error.signal)
      return { stdout: "", stderr: error.stderrTail, code: error.signal };
    throw error;
  }
}
