// Runs the bundled command (built once per test run by test/global-setup.ts, with the
// kill points of test/kill-points.ts) the way an operator does, and returns what it
// printed and how it ended.
import { rmSync } from "node:fs";
import { chmod, chown, copyFile, mkdtemp } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import type { Readable } from "node:stream";
import { repoRoot } from "../common/repo-root.ts";
import { bundleEntry } from "../image-build/bundle.ts";
import { CommandError, run, type StartedProcess, start } from "../tools/exec.ts";

export const BUNDLE = join(repoRoot(), "dist/liken-stick-test.cjs");

/** The user an unprivileged run is: nobody, with no groups. */
export const NOBODY = { uid: 65534, gid: 65534 } as const;

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

export interface CliOptions {
  readonly cwd?: string;
  readonly env?: Record<string, string>;
  /**
   * Run as an operator without root: as NOBODY, with no supplementary groups, in a folder
   * of its own (relative paths do not reach the checkout, which NOBODY may not read). What
   * it reads must be readable by everyone, and what it writes must be in a folder NOBODY
   * may write (nobodysFolder()).
   */
  readonly unprivileged?: boolean;
}

export async function cli(args: readonly string[], options: CliOptions = {}): Promise<CliResult> {
  const [file, argv, cwd] = await commandLine(args, options);
  try {
    const r = await run(file, argv, {
      // Refused or failed, a usage error, or stopped by SIGHUP, SIGINT or SIGTERM.
      okExitCodes: [1, 2, 129, 130, 143],
      timeoutMs: 300_000,
      ...(cwd ? { cwd } : {}),
      ...(options.env ? { env: { ...process.env, ...options.env } as Record<string, string> } : {}),
    });
    return { stdout: r.stdout, stderr: r.stderr, code: r.exitCode };
  } catch (error) {
    if (error instanceof CommandError && error.signal)
      return { stdout: "", stderr: error.stderrTail, code: error.signal };
    throw error;
  }
}

/**
 * Starts the command and returns at once, its stdout and stderr piped, so a test can act
 * while it runs (send it a signal); the process's pid is the command's own.
 */
export async function startCli(
  args: readonly string[],
  options: CliOptions = {},
): Promise<StartedProcess> {
  const [file, argv, cwd] = await commandLine(args, options);
  return start(file, argv, {
    stdout: "pipe",
    stderr: "pipe",
    ...(cwd ? { cwd } : {}),
    ...(options.env ? { env: { ...process.env, ...options.env } as Record<string, string> } : {}),
  });
}

/** Resolves once `text` has appeared on `stream` (a started command's stdout), which it keeps reading. */
export function waitForOutput(stream: Readable | undefined, text: string): Promise<void> {
  return new Promise((resolve, reject) => {
    let seen = "";
    stream?.on("data", (chunk: Buffer) => {
      seen += chunk.toString();
      if (seen.includes(text)) resolve();
    });
    stream?.on("end", () => reject(new Error(`the command ended without printing ${text}`)));
  });
}

async function commandLine(
  args: readonly string[],
  options: CliOptions,
): Promise<[string, string[], string | undefined]> {
  if (!options.unprivileged) return [process.execPath, [BUNDLE, ...args], options.cwd];
  const bundle = await bundleNobodyReads();
  // setpriv execs the command in its own process: the pid and the signals are the command's.
  return [
    "setpriv",
    [
      `--reuid=${NOBODY.uid}`,
      `--regid=${NOBODY.gid}`,
      "--clear-groups",
      "--",
      process.execPath,
      bundle,
      ...args,
    ],
    options.cwd ?? dirname(bundle),
  ];
}

let nobodysBundle: Promise<string> | undefined;

// A checkout under /root is closed to NOBODY: an unprivileged run gets a copy of the bundle
// in a folder everyone may read, made once per test process and gone when it ends.
function bundleNobodyReads(): Promise<string> {
  nobodysBundle ??= (async () => {
    const dir = await mkdtemp(join(tmpdir(), "liken-bundle-"));
    process.once("exit", () => rmSync(dir, { recursive: true, force: true }));
    await chmod(dir, 0o755);
    const copy = join(dir, "liken-stick-test.cjs");
    await copyFile(BUNDLE, copy);
    await chmod(copy, 0o644);
    return copy;
  })();
  return nobodysBundle;
}

/** A new folder under the temporary folder that NOBODY owns, and everyone may read. */
export async function nobodysFolder(prefix: string): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), prefix));
  await chmod(dir, 0o755);
  await chown(dir, NOBODY.uid, NOBODY.gid);
  return dir;
}
