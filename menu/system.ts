// The menu's two programs, both started through tools/exec.ts: a shell on the menu's own
// terminal, and poweroff.
import { readlinkSync } from "node:fs";
import { CommandError, run } from "../tools/exec.ts";

/** The terminal device the menu reads (/dev/tty1, /dev/ttyS0, /dev/pts/3), if it reads one. */
export function findTtyPath(): string | undefined {
  try {
    const path = readlinkSync("/proc/self/fd/0");
    return path.startsWith("/dev/") ? path : undefined;
  } catch {
    // No /proc, or stdin is no file: no terminal to lend to a shell.
    return undefined;
  }
}

/** The first sh's script: $1 is the terminal's path. */
export const SHELL_ON_TTY =
  'echo "liken stick shell: type exit to go back to the menu." >"$1"; exec /bin/sh -i <"$1" >"$1" 2>&1';

/**
 * An interactive /bin/sh on `tty` until it exits. run() gives a program no terminal (its
 * input is /dev/null, its output a pipe), so a first sh opens the terminal by its path and
 * becomes the interactive shell on it. No time limit: the shell lasts as long as the
 * operator wants. Any exit status is the operator's business; only a missing sh is an error.
 */
export async function runShell(tty: string): Promise<void> {
  try {
    await run("/bin/sh", ["-c", SHELL_ON_TTY, "sh", tty], { timeoutMs: 0 });
  } catch (error) {
    if (error instanceof CommandError && (error.exitCode !== undefined || error.signal)) return;
    throw error;
  }
}

/** `poweroff -f`: off now, without stopping services (the stick runs none). */
export async function powerOff(): Promise<void> {
  await run("poweroff", ["-f"]);
}
