// shellcheck(1), Debian's package: the static check of the shell scripts the build writes.
// Only the tests run it, so it lives with the test support, not in tools/.
import { run } from "../tools/exec.ts";

/**
 * The dialects the scripts are checked as. Every script runs under busybox sh (ash);
 * Debian 12's shellcheck (0.9) has no busybox dialect, and dash is ash's closest kin it
 * knows: POSIX sh plus `local`, so what passes as dash runs on busybox.
 */
export type ShellDialect = "dash" | "sh";

export interface ShellcheckFinding {
  readonly line: number;
  readonly column: number;
  readonly level: "error" | "warning" | "info" | "style";
  /** The check's number: 2086 for SC2086. */
  readonly code: number;
  readonly message: string;
}

// 0: nothing found; 1: findings. Anything else (2 unreadable, 3 bad syntax of options, 4
// bad options) is a failure of the run, not an answer.
const FINDINGS_EXIT = 1;

/** Every finding of shellcheck on `script`, read as `shell` whatever its #! line says. */
export async function shellcheck(
  script: string,
  shell: ShellDialect,
): Promise<ShellcheckFinding[]> {
  const args = [`--shell=${shell}`, "--format=json1", "--severity=style", "-"];
  const { stdout } = await run("shellcheck", args, {
    input: script,
    okExitCodes: [FINDINGS_EXIT],
  });
  return parseFindings(stdout, `shellcheck ${args.join(" ")}`);
}

function parseFindings(json: string, command: string): ShellcheckFinding[] {
  let comments: unknown;
  try {
    comments = (JSON.parse(json) as { comments?: unknown }).comments;
  } catch (error) {
    throw new Error(`\`${command}\` printed no JSON: ${json.slice(0, 200)}`, { cause: error });
  }
  if (!Array.isArray(comments)) throw new Error(`\`${command}\` printed no comments list`);
  return comments.map((c: ShellcheckFinding) => ({
    line: c.line,
    column: c.column,
    level: c.level,
    code: c.code,
    message: c.message,
  }));
}

/** One line per finding, as an editor would show it: `name:line:column: SCcode level: message`. */
export function formatFinding(name: string, f: ShellcheckFinding): string {
  return `${name}:${f.line}:${f.column}: SC${f.code} ${f.level}: ${f.message}`;
}
