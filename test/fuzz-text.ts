// Arbitraries for the text documents a disk or a stick holds (release.toml, spec.toml,
// boot-modules.json, the status documents): a valid document damaged a little, the same
// document with values of the wrong type, and nesting deep enough to test a parser's stack.
import fc from "fast-check";
import { it } from "vitest";
import { fuzzParameters } from "./fuzz.ts";

/** `text` with a few characters replaced, inserted or deleted. */
export function mutatedText(text: string, maxChanges = 6): fc.Arbitrary<string> {
  const edit = fc.record({
    at: fc.nat(Math.max(0, text.length)),
    remove: fc.nat(3),
    insert: fc.oneof(
      fc.string({ maxLength: 3 }),
      fc.constantFrom('"', "[", "]", "{", "}", "=", "\n", ",", ".", "\\"),
    ),
  });
  return fc.array(edit, { minLength: 1, maxLength: maxChanges }).map((edits) => {
    let out = text;
    for (const e of edits) {
      const at = Math.min(e.at, out.length);
      out = out.slice(0, at) + e.insert + out.slice(at + e.remove);
    }
    return out;
  });
}

const hugeDigits = fc.integer({ min: 17, max: 400 }).map((n) => "9".repeat(n));

/** A TOML value of any type, as text: what a reader expects, and what it must refuse. */
export const tomlValue: fc.Arbitrary<string> = fc.oneof(
  fc.string({ maxLength: 12 }).map((s) => JSON.stringify(s)),
  fc.integer().map(String),
  fc.constantFrom("0", "-1", "9007199254740993", "-9223372036854775808", "9223372036854775807"),
  hugeDigits,
  fc.constantFrom("nan", "inf", "-inf", "+inf", "1.5", "-0.0", "1e300", "5e-324"),
  fc.constantFrom("true", "false", "1979-05-27T07:32:00Z", "1979-05-27", "07:32:00"),
  fc.constantFrom(
    "[]",
    "[1, 2]",
    '["a", "b"]',
    "[[1], [2]]",
    "{}",
    "{ a = 1 }",
    '{ sha256 = 1, size = "2" }',
  ),
  fc.constantFrom('"1.0.0"', '"../../etc"', '""', `"${"a".repeat(300)}"`, '"rest"', '"1GiB"'),
);

/** A JSON value of any type, as text. */
export const jsonValue: fc.Arbitrary<string> = fc.oneof(
  fc.jsonValue({ maxDepth: 2 }).map((v) => JSON.stringify(v)),
  hugeDigits,
  fc.constantFrom(
    "1e400",
    "-1e400",
    "-0",
    "0.5",
    "null",
    "true",
    "[]",
    "{}",
    "[null]",
    "[[]]",
    '[""]',
    '{"a":{}}',
  ),
);

/**
 * `text` with some of its values (what follows `= ` in TOML, `": ` in JSON) replaced by
 * `values`, or removed with their key's line: wrong types, huge numbers, missing keys.
 */
export function withValuesReplaced(
  text: string,
  values: fc.Arbitrary<string>,
): fc.Arbitrary<string> {
  // An inline table's values are replaced one by one, not the table.
  const toml = /(= )(?!\{)("[^"\n]*"|\[[^\]\n]*\]|[^,}\n]+)/g;
  const json = /(": )("[^"\n]*"|\[[^\]\n]*\]|[^,}\n]+)/g;
  const pattern = /^\s*[{[]/.test(text) ? json : toml;
  const count = [...text.matchAll(pattern)].length;
  // A few values at a time: a reader refuses the first it meets, so more would hide the rest.
  const changes = fc.array(fc.tuple(fc.nat(Math.max(0, count - 1)), values), {
    minLength: 1,
    maxLength: 3,
  });
  return fc
    .tuple(changes, fc.array(fc.nat(count + 5), { maxLength: 1 }))
    .map(([changed, dropped]) => {
      const at = new Map(changed);
      let i = 0;
      const replaced = text.replace(pattern, (whole, eq: string) => {
        const c = at.get(i++);
        return c === undefined ? whole : `${eq}${c}`;
      });
      return replaced
        .split("\n")
        .filter((_, n) => !dropped.includes(n))
        .join("\n");
    });
}

/** Arrays (and tables) nested `depth` deep: a recursive parser's stack. */
export const deeplyNested = {
  toml: fc
    .integer({ min: 50, max: 20_000 })
    .chain((depth) =>
      fc.constantFrom(
        `x = ${"[".repeat(depth)}${"]".repeat(depth)}`,
        `x = ${"{ a = ".repeat(depth)}1${" }".repeat(depth)}`,
        `${Array.from({ length: Math.min(depth, 2000) }, (_, i) => `k${i}`).join(".")} = 1`,
      ),
    ),
  json: fc
    .integer({ min: 50, max: 20_000 })
    .chain((depth) =>
      fc.constantFrom(
        `${"[".repeat(depth)}${"]".repeat(depth)}`,
        `${'{"a":'.repeat(depth)}1${"}".repeat(depth)}`,
      ),
    ),
};

/**
 * fuzzParameters, but at most `most` runs: for a property whose cases are few (a depth and
 * a form of nesting), where `npm run fuzz`'s thousands would repeat them at seconds each.
 */
export function fewRunParameters<T>(runs: number, most: number): fc.Parameters<T> {
  const parameters = fuzzParameters<T>(runs);
  return { ...parameters, numRuns: Math.min(parameters.numRuns ?? runs, most) };
}

/**
 * The four properties every reader of a text document holds, each an `it`: any text, the
 * `valid` document damaged, its values replaced by others of any type, and deep nesting
 * (after `valid` for TOML, whose tables a document adds to). `expectRead` fails the test
 * unless the reader gave its own answer: a value, or its typed refusal.
 */
export function itReadsAnyText(
  valid: string,
  format: "json" | "toml",
  expectRead: (text: string) => void,
  anyLength = 300,
): void {
  it("answers any text with a value or its own refusal", () => {
    fc.assert(
      fc.property(fc.string({ maxLength: anyLength, unit: "binary" }), expectRead),
      fuzzParameters(),
    );
  });
  it("answers the document damaged a little", () => {
    fc.assert(fc.property(mutatedText(valid), expectRead), fuzzParameters());
  });
  it("answers values of the wrong type, huge numbers and missing keys", () => {
    const values = format === "json" ? jsonValue : tomlValue;
    fc.assert(fc.property(withValuesReplaced(valid, values), expectRead), fuzzParameters());
  });
  it("answers deep nesting without running out of stack", () => {
    const nested =
      format === "json"
        ? deeplyNested.json
        : deeplyNested.toml.map((text) => `${valid}\n${text}\n`);
    fc.assert(fc.property(nested, expectRead), fewRunParameters(20, 200));
  });
}
