// `liken-stick`: finds the verb, parses its arguments, runs it, and turns every error into
// one line on stderr and an exit code.
import { realpathSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { exitCodeFor, LikenError, oneLine, usageError } from "../common/errors.ts";
import { nearest } from "../common/nearest.ts";
import pkg from "../package.json" with { type: "json" };
import { warmUpPrograms } from "../tools/exec.ts";
import { parseVerbArgs } from "./args.ts";
import { commandHelp, verbHelp } from "./help.ts";
import { BUG_HINT, failureDocument } from "./json-error.ts";
import type { Io, Verb } from "./verb.ts";
import { VERBS } from "./verbs.ts";

const stdio: Io = {
  out: (text) => process.stdout.write(text),
  err: (text) => process.stderr.write(text),
};

/** Runs the command line `argv` (without node and the script) and returns the exit code. */
export async function main(argv: readonly string[], io: Io = stdio): Promise<number> {
  const [first] = argv;
  if (first === undefined || first === "-h" || first === "--help" || first === "help") {
    (first === undefined ? io.err : io.out)(commandHelp(VERBS, pkg.version));
    return first === undefined ? 2 : 0;
  }
  if (first === "--version") {
    io.out(`${pkg.version}\n`);
    return 0;
  }
  // Under --json a verb prints one document; held back until it ends, so that a refusal or
  // failure becomes part of it (cli/json-error.ts) rather than a second document.
  const json = argv.includes("--json");
  const printed: string[] = [];
  const verbIo: Io = json ? { out: (text) => printed.push(text), err: io.err } : io;
  let verb: Verb | undefined;
  try {
    verb = findVerb(argv);
    const rest = argv.slice(verb.words.length);
    if (rest.includes("--help") || rest.includes("-h")) {
      io.out(verbHelp(verb));
      return 0;
    }
    const code = await verb.run(parseVerbArgs(verb, rest), verbIo);
    io.out(printed.join(""));
    return code;
  } catch (error) {
    io.err(`liken-stick${verb ? ` ${verb.words.join(" ")}` : ""}: ${messageOf(error)}\n`);
    if (json) io.out(failureDocument(printed.join(""), error));
    return exitCodeFor(error);
  }
}

function findVerb(argv: readonly string[]): Verb {
  const matches = VERBS.filter((v) => v.words.every((w, i) => argv[i] === w));
  const verb = matches.sort((a, b) => b.words.length - a.words.length)[0];
  if (verb) return verb;
  const first = argv[0] ?? "";
  const group = VERBS.filter((v) => v.words[0] === first);
  if (group.length > 0) {
    const subs = group.map((v) => v.words.slice(1).join(" "));
    const given = argv[1] === undefined ? "is missing" : `"${argv[1]}" is not one`;
    throw usageError(
      `${first} needs one of: ${subs.join(", ")}; ${given}`,
      `see liken-stick ${first} ${subs[0]} --help`,
    );
  }
  const suggestion = nearest(
    first,
    VERBS.map((v) => v.words[0] ?? ""),
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

// Run when executed as a program (the bin script, or the bundle), not when imported by tests.
const invokedAs = process.argv[1] ? realpathSync(process.argv[1]) : "";
if (invokedAs === fileURLToPath(import.meta.url) || /liken-stick(-test)?\.cjs$/.test(invokedAs)) {
  // A reader that goes away (`| head`) must not stop an install half way: drop the output.
  for (const stream of [process.stdout, process.stderr]) {
    stream.on("error", (error: NodeJS.ErrnoException) => {
      if (error.code !== "EPIPE") throw error;
    });
  }
  main(process.argv.slice(2)).then((code) => {
    process.exitCode = code;
  });
}
