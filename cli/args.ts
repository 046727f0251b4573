// Command-line parsing on node:util's parseArgs, strict: an unknown option or a missing
// value is a usage error that names the verb's --help.
import { parseArgs } from "node:util";
import { usageError } from "../common/errors.ts";
import { nearest } from "../common/nearest.ts";
import type { OptionSpec, ParsedArgs, Verb } from "./verb.ts";

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
    const { what, meant } = describeParseError(error, verb);
    const suggestion = meant ? `did you mean ${meant}? ` : "";
    throw usageError(what, `${suggestion}see liken-stick ${name} --help`);
  }
  const operands = parsed.positionals;
  const missing = verb.options.find((o) => isRequired(o) && parsed.values[o.name] === undefined);
  if (missing)
    throw usageError(`missing ${label(missing)}`, `usage: liken-stick ${name} ${usage(verb)}`);
  if (operands.length < verb.minOperands || operands.length > verb.maxOperands) {
    const what =
      operands.length < verb.minOperands
        ? `missing ${verb.operands}`
        : `unexpected argument "${operands[verb.maxOperands]}"`;
    throw usageError(what, `usage: liken-stick ${name} ${usage(verb)}`);
  }
  return { operands, options: parsed.values as ParsedArgs["options"] };
}

/**
 * The usage line of a verb after its words: options first, then operands; an optional one
 * in brackets, a repeatable one followed by "...".
 */
export function usage(verb: Verb): string {
  const opts = verb.options.map((o) => {
    const shown = isRequired(o) ? label(o) : `[${label(o)}]`;
    return o.multiple ? `${shown}...` : shown;
  });
  return [...opts, verb.operands].filter((s) => s !== "").join(" ");
}

/** Whether the verb cannot run without the option (its summary says so: cli/verb.ts). */
export function isRequired(o: OptionSpec): boolean {
  return o.summary.endsWith("(required)");
}

function label(o: OptionSpec): string {
  return `--${o.name}${o.value ? ` ${o.value}` : ""}`;
}

// parseArgs' messages are long and mention internals; keep the part a person needs, and
// suggest the option meant, as for a mistyped verb.
function describeParseError(error: unknown, verb: Verb): { what: string; meant?: string } {
  const message = error instanceof Error ? error.message : String(error);
  const unknown = /Unknown option '([^']+)'/.exec(message);
  if (unknown) {
    const given = unknown[1] as string;
    const names = verb.options.map((o) => `--${o.name}`);
    const meant = given.startsWith("--") ? nearest(given, names) : undefined;
    return { what: `unknown option ${given}`, ...(meant ? { meant } : {}) };
  }
  const needsValue = /Option '(?:-\w, )?(--[\w-]+)[^']*' argument missing/.exec(message);
  if (needsValue) {
    const o = verb.options.find((x) => `--${x.name}` === needsValue[1]);
    return { what: `option ${o ? label(o) : needsValue[1]} needs a value` };
  }
  const noValue = /Option '(--[\w-]+)' does not take an argument/.exec(message);
  if (noValue) return { what: `option ${noValue[1]} takes no value` };
  return { what: message.split(".")[0] ?? message };
}
