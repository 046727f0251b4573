// parseManifest: TOML text in, a validated manifest or every problem out. Never throws
// for bad input: the menu and `manifest check` both show the problems and carry on.
import TOML from "@iarna/toml";
import { deepFreeze } from "./freeze.ts";
import { locate } from "./locate.ts";
import { Findings } from "./problems.ts";
import type { ManifestProblem, ManifestResult } from "./types.ts";
import { validate } from "./validate.ts";

export function parseManifest(text: string, file: string): ManifestResult {
  // Editors on some systems start UTF-8 files with a byte order mark; it is not part of the TOML.
  const source = text.startsWith("\uFEFF") ? text.slice(1) : text;
  let doc: TOML.JsonMap;
  try {
    doc = TOML.parse(source);
  } catch (error) {
    return deepFreeze({ ok: false, errors: [syntaxProblem(error, file)], warnings: [] });
  }
  const found = new Findings();
  const manifest = validate(doc, locate(source), found);
  const warnings = found.warnings(file);
  return deepFreeze(
    manifest === undefined || found.hasErrors
      ? { ok: false, errors: found.errors(file), warnings }
      : { ok: true, manifest, warnings },
  );
}

/** The parser's own words, without its position suffix and its multi-line excerpt. */
function syntaxProblem(error: unknown, file: string): ManifestProblem {
  const parsed = error as { message?: unknown; line?: unknown; col?: unknown };
  const firstLine = String(parsed.message ?? error).split("\n")[0] ?? "";
  const what = firstLine.replace(/ at row \d+, col \d+, pos \d+:?$/, "").trim() || "not valid TOML";
  // The parser counts lines and columns from 0.
  const line = typeof parsed.line === "number" ? parsed.line + 1 : 1;
  const col = typeof parsed.col === "number" ? parsed.col + 1 : 1;
  return { file, line, col, message: lowerFirst(what), hint: syntaxHint(what) };
}

function syntaxHint(what: string): string {
  if (/redefine/i.test(what)) return "each key and each [table] may appear only once";
  if (/single type/i.test(what)) return "every element of an array must have the same type";
  if (/unterminated/i.test(what)) return "close the string with the quote that opened it";
  if (/without value/i.test(what)) return "write a value after the =, e.g. a quoted string";
  return "the manifest is TOML v0.5, see https://toml.io/en/v0.5.0";
}

function lowerFirst(text: string): string {
  return text.charAt(0).toLowerCase() + text.slice(1);
}
