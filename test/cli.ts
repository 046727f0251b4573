// Runs the bundled command (built once per test run by test/global-setup.ts) the way an
// operator does, and returns what it printed and its exit code.
import { run } from "../tools/exec.ts";

const BUNDLE = new URL("../dist/liken-stick-test.mjs", import.meta.url).pathname;

export interface CliResult {
  readonly stdout: string;
  readonly stderr: string;
  readonly code: number;
}

export async function cli(
  args: readonly string[],
  options: { cwd?: string } = {},
): Promise<CliResult> {
  const r = await run(process.execPath, [BUNDLE, ...args], {
    okExitCodes: [1, 2],
    timeoutMs: 120_000,
    ...(options.cwd ? { cwd: options.cwd } : {}),
  });
  return { stdout: r.stdout, stderr: r.stderr, code: r.exitCode };
}
