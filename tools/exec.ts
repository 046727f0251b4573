// The one module that starts external programs. Every tool wrapper in tools/ calls run(),
// or start() for a program that runs alongside (QEMU); nothing else imports execa (biome's
// noRestrictedImports enforces it).
import type { Readable, Writable } from "node:stream";
import { MIB } from "../common/size.ts";
import hostTools from "./host-tools.json" with { type: "json" };

export interface RunOptions {
  /** Kill the tool after this long; a hung probe must not hang the installer. */
  readonly timeoutMs?: number;
  /** Bytes or text for the tool's standard input (otherwise it reads nothing). */
  readonly input?: string | Uint8Array;
  /** Exit codes that are answers rather than failures (blkid's 2 means "nothing found"). */
  readonly okExitCodes?: readonly number[];
  readonly cwd?: string;
  readonly env?: Readonly<Record<string, string>>;
}

export interface RunResult {
  readonly stdout: string;
  readonly stderr: string;
  readonly exitCode: number;
}

const DEFAULT_TIMEOUT_MS = 60_000;
const STDERR_TAIL_LINES = 20;

// Loaded at the first program started, not with the command: evaluating execa's 200 KB is
// a quarter of a second of the stick's start under emulation, and the menu's first screen
// and `--help` start none. The entries' warmUp loads it so the image's code cache holds it
// compiled (image-build/code-cache.ts).
export function execaModule(): Promise<typeof import("execa")> {
  return import("execa");
}

/**
 * What the entries' warmUp runs for the image's code cache: execa loaded and one program
 * run to its end, so the functions a run goes through are in the cache compiled too. With
 * execa only loaded, the boot agent's first program (pstore's mount) took 0.56 s under
 * emulation from execa's call to its result, each one after it a tenth of a second.
 */
export async function warmUpPrograms(): Promise<void> {
  // The build host's true(1), not process.execPath: an arm64 image's Node.js runs here under
  // QEMU's user-mode emulator, and a host without binfmt_misc cannot start it again.
  await run("true", []);
}

/** A tool that failed, was killed, timed out, or is not installed. */
export class CommandError extends Error {
  override readonly name = "CommandError";
  constructor(
    readonly command: string,
    readonly exitCode: number | undefined,
    readonly signal: string | undefined,
    readonly timedOut: boolean,
    readonly stderrTail: string,
    readonly missingPackage?: string,
  ) {
    super(describe(command, exitCode, signal, timedOut, stderrTail, missingPackage));
  }
}

/** Runs a tool with an argument array (never a shell), LANG=C, no stdin unless given. */
export async function run(
  file: string,
  args: readonly string[],
  options: RunOptions = {},
): Promise<RunResult> {
  const command = quoteCommand(file, args);
  const result = await (await execaModule()).execa(file, args, {
    reject: false,
    timeout: options.timeoutMs ?? DEFAULT_TIMEOUT_MS,
    // Tools' messages and number formats must not depend on the operator's locale.
    env: { ...options.env, LANG: "C", LC_ALL: "C" },
    cwd: options.cwd,
    ...(options.input === undefined ? { stdin: "ignore" as const } : { input: options.input }),
    stripFinalNewline: false,
    maxBuffer: 256 * MIB,
  });
  const stderr = String(result.stderr ?? "");
  const stdout = String(result.stdout ?? "");
  if ((result as { code?: string }).code === "ENOENT") {
    throw new CommandError(command, undefined, undefined, false, "", packageFor(file));
  }
  const exitCode = result.exitCode;
  const ok =
    !result.timedOut &&
    result.signal === undefined &&
    exitCode !== undefined &&
    (exitCode === 0 || (options.okExitCodes ?? []).includes(exitCode));
  if (!ok) {
    throw new CommandError(command, exitCode, result.signal, result.timedOut, tail(stderr));
  }
  return { stdout, stderr, exitCode: exitCode as number };
}

/** The Debian package that brings a command, from tools/host-tools.json. */
export function packageFor(command: string): string | undefined {
  const base = command.split("/").pop();
  return hostTools.tools.find((t) => t.command === base)?.package;
}

function describe(
  command: string,
  exitCode: number | undefined,
  signal: string | undefined,
  timedOut: boolean,
  stderrTail: string,
  missingPackage: string | undefined,
): string {
  const tool = command.split(" ")[0];
  if (exitCode === undefined && signal === undefined && !timedOut) {
    const hint = missingPackage ? `install the Debian package ${missingPackage}` : "install it";
    return `${tool} not found (${hint}, or run npm run setup)`;
  }
  const how = timedOut
    ? "timed out"
    : signal
      ? `was killed by ${signal}`
      : `failed with exit code ${exitCode}`;
  const detail = stderrTail ? `: ${stderrTail.split("\n").join(" | ")}` : "";
  return `\`${command}\` ${how}${detail}`;
}

// The last lines of stderr, error-like lines kept first, so a long log still shows its cause.
function tail(stderr: string): string {
  const lines = stderr.split("\n").filter((l) => l.trim() !== "");
  if (lines.length <= STDERR_TAIL_LINES) return lines.join("\n");
  const errorish = lines.filter((l) => /error|fail|cannot|invalid|denied/i.test(l));
  const rest = lines.slice(-STDERR_TAIL_LINES);
  return [...new Set([...errorish.slice(-5), ...rest])].slice(-STDERR_TAIL_LINES).join("\n");
}

function quoteCommand(file: string, args: readonly string[]): string {
  return [file, ...args]
    .map((a) => (/^[\w@%+=:,./-]+$/.test(a) ? a : `'${a.replaceAll("'", "'\\''")}'`))
    .join(" ");
}

export type StartStream = "inherit" | "ignore" | "pipe" | { readonly file: string };

export interface StartOptions {
  readonly cwd?: string;
  readonly env?: Readonly<Record<string, string>>;
  /** "ignore" by default: a program reads nothing unless asked to. */
  readonly stdin?: "inherit" | "ignore" | "pipe";
  /** "ignore" by default. A "pipe" must be read by the caller, or the program stalls. */
  readonly stdout?: StartStream;
  /** "pipe" by default: start() keeps its tail for the exit report (a file works too). */
  readonly stderr?: StartStream;
}

/** How a started program ended. */
export interface ProcessExit {
  readonly exitCode: number | undefined;
  readonly signal: string | undefined;
  /** The end of stderr when it was a pipe ("" otherwise). */
  readonly stderrTail: string;
}

/** A program start() launched: it runs until it exits or is killed. */
export interface StartedProcess {
  readonly command: string;
  readonly pid: number | undefined;
  readonly stdin: Writable | undefined;
  readonly stdout: Readable | undefined;
  readonly stderr: Readable | undefined;
  /**
   * Resolves when the program ends, however it ends (a nonzero exit is an answer here, not
   * an error); rejects only when it could not start (not installed: the error names the
   * package).
   */
  readonly exited: Promise<ProcessExit>;
  /** Sends `signal` (SIGTERM by default; SIGKILL follows 5 s later if it is still there). */
  kill(signal?: NodeJS.Signals): void;
}

const STDERR_KEEP_BYTES = 64 * 1024;

/**
 * Starts a long-running program (QEMU) with an argument array, never a shell, LANG=C, and
 * returns at once. The program is killed if this process exits first (execa's cleanup).
 */
export async function start(
  file: string,
  args: readonly string[],
  options: StartOptions = {},
): Promise<StartedProcess> {
  const command = quoteCommand(file, args);
  const stderrMode = options.stderr ?? "pipe";
  const child = (await execaModule()).execa(file, args, {
    reject: false,
    env: { ...options.env, LANG: "C", LC_ALL: "C" },
    cwd: options.cwd,
    stdin: options.stdin ?? "ignore",
    stdout: options.stdout ?? "ignore",
    stderr: stderrMode,
    // Output goes to the caller's streams or files; nothing piles up in memory.
    buffer: false,
    cleanup: true,
  });
  let stderrKept = "";
  if (stderrMode === "pipe") {
    child.stderr?.setEncoding("utf8");
    child.stderr?.on("data", (chunk: string) => {
      stderrKept = (stderrKept + chunk).slice(-STDERR_KEEP_BYTES);
    });
  }
  const exited = child.then((result) => {
    if ((result as { code?: string }).code === "ENOENT") {
      throw new CommandError(command, undefined, undefined, false, "", packageFor(file));
    }
    return { exitCode: result.exitCode, signal: result.signal, stderrTail: tail(stderrKept) };
  });
  // A caller that only kills the program must not meet an unhandled rejection.
  exited.catch(() => {});
  return {
    command,
    pid: child.pid,
    stdin: child.stdin ?? undefined,
    stdout: child.stdout ?? undefined,
    stderr: child.stderr ?? undefined,
    exited,
    kill: (signal = "SIGTERM") => {
      child.kill(signal);
    },
  };
}
