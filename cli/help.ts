// The text of `liken-stick --help` and `liken-stick <verb> --help`, made from the verb table
// so that help lists exactly the verbs that exist.
import { usage } from "./args.ts";
import type { Verb } from "./verb.ts";

const EXIT_CODES =
  "Exit codes: 0 done, 1 refused or failed, 2 usage error; an install stopped by Ctrl-C 130 (SIGTERM 143, SIGHUP 129).";

export function commandHelp(verbs: readonly Verb[], version: string): string {
  const width = Math.max(...verbs.map((v) => signature(v).length));
  const rows = verbs.map((v) => `  ${signature(v).padEnd(width)}  ${v.summary}`);
  return [
    `liken-stick ${version}: the liken install stick: disks, installs, releases and images.`,
    "",
    "Usage: liken-stick VERB [OPTIONS] [ARGUMENTS]",
    "",
    "Verbs:",
    ...rows,
    "",
    "Options:",
    "  -h, --help  show this help; liken-stick VERB --help shows a verb's",
    "  --version   print the version",
    "",
    "Every verb that prints data takes --json for programs; errors go to stderr as one line",
    'and, under --json, to stdout as {"error": {"kind", "reason", "what", "hint"}}.',
    EXIT_CODES,
    "",
  ].join("\n");
}

export function verbHelp(verb: Verb): string {
  const name = verb.words.join(" ");
  const width = Math.max(10, ...verb.options.map((o) => optionLabel(o).length));
  const options = [
    ...verb.options.map((o) => `  ${optionLabel(o).padEnd(width)}  ${o.summary}`),
    `  ${"-h, --help".padEnd(width)}  show this help`,
  ];
  return [
    `Usage: liken-stick ${name} ${usage(verb)}`.trimEnd(),
    "",
    `${verb.summary[0]?.toUpperCase()}${verb.summary.slice(1)}.`,
    "",
    verb.description.trim(),
    "",
    "Options:",
    ...options,
    "",
    EXIT_CODES,
    "",
  ].join("\n");
}

function signature(verb: Verb): string {
  return [...verb.words, verb.operands].filter((s) => s !== "").join(" ");
}

function optionLabel(o: Verb["options"][number]): string {
  return `--${o.name}${o.value ? ` ${o.value}` : ""}`;
}

/** `liken-stick manifest` alone: the verbs that start with that word, each with its usage. */
export function groupHelp(word: string, verbs: readonly Verb[]): string {
  const entries = verbs.flatMap((v) => [
    `  liken-stick ${[...v.words, usage(v)].join(" ")}`,
    `      ${v.summary}`,
  ]);
  const first = verbs[0]?.words.join(" ") ?? word;
  return [
    `The verbs of liken-stick ${word}:`,
    "",
    ...entries,
    "",
    `liken-stick ${first} --help says more.`,
    "",
  ].join("\n");
}
