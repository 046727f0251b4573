// Command-line parsing on node:util's parseArgs, strict: an unknown option or a missing
// value is a usage error that names the verb's --help.
import { parseArgs } from "node:util";
import { usageError } from "../common/errors.ts";
import type { ParsedArgs, Verb } from "./verb.ts";

export type { ParsedArgs };

export function parseVerbArgs(verb: Verb, argv: readonly string[]): ParsedArgs {
  const name = verb.words.join(" ");
  const options = Object.fromEntries(
    verb.options.map((o) => [o.name, { type: o.type, multiple: o.multiple ?? false }]),
  );
  let parsed: ReturnType<typeof parseArgs>;
  try {
    parsed = parseArgs({ args: [...argv], options, allowPositionals: true, strict: true });
  } catch (error) {
    throw usageError(describeParseError(error), `see liken-stick ${name} --help`);
  }
  const operands = parsed.positionals;
  if (operands.length < verb.minOperands || operands.length > verb.maxOperands) {
    const what =
      operands.length < verb.minOperands
        ? `missing ${verb.operands}`
        : `unexpected argument "${operands[verb.maxOperands]}"`;
    throw usageError(what, `usage: liken-stick ${name} ${usage(verb)}`);
  }
  return { operands, options: parsed.values as ParsedArgs["options"] };
}

/** The usage line of a verb after its words: options first, then operands. */
export function usage(verb: Verb): string {
  const opts = verb.options.map((o) => `[--${o.name}${o.value ? ` ${o.value}` : ""}]`);
  return [...opts, verb.operands].filter((s) => s !== "").join(" ");
}

// parseArgs' messages are long and mention internals; keep the part a person needs.
function describeParseError(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  const unknown = /Unknown option '([^']+)'/.exec(message);
  if (unknown) return `unknown option ${unknown[1]}`;
  const needsValue = /Option '(?:-\w, )?(--[\w-]+)[^']*' argument missing/.exec(message);
  if (needsValue) return `option ${needsValue[1]} needs a value`;
  const noValue = /Option '(--[\w-]+)' does not take an argument/.exec(message);
  if (noValue) return `option ${noValue[1]} takes no value`;
  return message.split(".")[0] ?? message;
}
