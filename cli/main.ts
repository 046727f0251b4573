// `liken-stick`: finds the verb, parses its arguments, runs it, and turns every error into
// one line on stderr and an exit code.
import { realpathSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { exitCodeFor, LikenError, oneLine, usageError } from "../common/errors.ts";
import { nearest } from "../common/nearest.ts";
import pkg from "../package.json" with { type: "json" };
import { warmUpPrograms } from "../tools/exec.ts";
import { parseVerbArgs } from "./args.ts";
import { inCommandLineWords } from "./command-line-words.ts";
import { commandHelp, groupHelp, verbHelp } from "./help.ts";
import { BUG_HINT, failureDocument } from "./json-error.ts";
import { plainError } from "./plain-error.ts";
import type { Io, Verb } from "./verb.ts";
import { VERBS } from "./verbs.ts";

const stdio: Io = {
  out: (text) => process.stdout.write(text),
  err: (text) => process.stderr.write(text),
};

/**
 * Runs the command line `argv` (without node and the script) and returns the exit code.
 * `verbs` is the stick's own unless a developer's entry adds one (testing/vm-verb.ts).
 */
export async function main(
  given: readonly string[],
  io: Io = stdio,
  verbs: readonly Verb[] = VERBS,
): Promise<number> {
  // `liken-stick help VERB` is `liken-stick VERB --help`.
  const argv = given[0] === "help" && given.length > 1 ? [...given.slice(1), "--help"] : given;
  const [first] = argv;
  // Asking for help, or for nothing yet, is not a mistake: the help, on stdout, exit 0.
  if (first === undefined || HELP.includes(first) || first === "help") {
    io.out(commandHelp(verbs, pkg.version));
    return 0;
  }
  const group = verbs.filter((v) => v.words.length > 1 && v.words[0] === first);
  if (group.length > 0 && (argv[1] === undefined || HELP.includes(argv[1]))) {
    io.out(groupHelp(first, group));
    return 0;
  }
  if (first === "--version") {
    io.out(`${pkg.version}\n`);
    return 0;
  }
  // Under --json a verb prints one document; held back until it ends, so that a refusal or
  // failure becomes part of it (cli/json-error.ts) rather than a second document.
  const json = argv.includes("--json");
  const printed: string[] = [];
  // The shared planner's advice names the menu's entries; here it names the flags.
  const words = first === "menu" ? (text: string) => text : inCommandLineWords;
  const verbIo: Io = {
    out: json ? (text) => printed.push(text) : (text) => io.out(words(text)),
    err: (text) => io.err(words(text)),
  };
  let verb: Verb | undefined;
  try {
    verb = findVerb(argv, verbs);
    const rest = argv.slice(verb.words.length);
    if (rest.some((a) => HELP.includes(a))) {
      io.out(verbHelp(verb));
      return 0;
    }
    const code = await verb.run(parseVerbArgs(verb, rest), verbIo);
    io.out(words(printed.join("")));
    return code;
  } catch (thrown) {
    const error = plainError(thrown);
    const name = verb ? ` ${verb.words.join(" ")}` : "";
    io.err(words(`liken-stick${name}: ${messageOf(error)}\n`));
    if (json) io.out(words(failureDocument(printed.join(""), error)));
    return exitCodeFor(error);
  }
}

const HELP: readonly string[] = ["--help", "-h"];

function findVerb(argv: readonly string[], verbs: readonly Verb[]): Verb {
  const matches = verbs.filter((v) => v.words.every((w, i) => argv[i] === w));
  const verb = matches.sort((a, b) => b.words.length - a.words.length)[0];
  if (verb) return verb;
  const first = argv[0] ?? "";
  const group = verbs.filter((v) => v.words[0] === first);
  if (group.length > 0) {
    const named = `${first} ${argv[1]}`;
    const suggestion = nearest(
      named,
      group.map((v) => v.words.join(" ")),
    );
    const hint = suggestion ? `did you mean "${suggestion}"? ` : "";
    throw usageError(`unknown verb "${named}"`, `${hint}see liken-stick ${first} --help`);
  }
  const suggestion = nearest(
    first,
    verbs.map((v) => v.words[0] ?? ""),
  );
  const hint = suggestion ? `did you mean "${suggestion}"? ` : "";
  throw usageError(`unknown verb "${first}"`, `${hint}see liken-stick --help`);
}

function messageOf(error: unknown): string {
  const line = oneLine(error);
  // An unexpected error: its chain of causes, and who to tell.
  if (!(error instanceof LikenError) && error instanceof Error) return `${line} (${BUG_HINT})`;
  return line;
}

/**
 * What the image build's code cache runs beside the bundle's top level, so what the command
 * loads and runs lazily is in the cache compiled (image-build/code-cache.ts): execa and a
 * program's run through it for the tools, and the menu with blessed. Not the report's
 * systeminformation fallback (600 KB, rarely run).
 */
export async function warmUp(): Promise<void> {
  await Promise.all([warmUpPrograms(), import("../menu/app.ts")]);
}

/** Runs the process's command line with `verbs` and sets its exit code. */
export function runAsProgram(verbs: readonly Verb[] = VERBS): void {
  // A reader that goes away (`| head`) must not stop an install half way: drop the output.
  for (const stream of [process.stdout, process.stderr]) {
    stream.on("error", (error: NodeJS.ErrnoException) => {
      if (error.code !== "EPIPE") throw error;
    });
  }
  main(process.argv.slice(2), stdio, verbs).then((code) => {
    process.exitCode = code;
  });
}

// Run when executed as a program (the bin script, or the bundle), not when imported by tests.
// The test bundle is a program too, but its entry (test/cli-entry.ts) runs it itself, with
// the developer's vm beside the verbs.
const invokedAs = process.argv[1] ? realpathSync(process.argv[1]) : "";
const testBundle = /liken-stick-test\.cjs$/.test(invokedAs);
if (
  !testBundle &&
  (invokedAs === fileURLToPath(import.meta.url) || /liken-stick\.cjs$/.test(invokedAs))
) {
  runAsProgram();
}
