// parseManifest: TOML text in, a validated manifest or every problem out. Never throws
// for bad input: the menu and `manifest check` both show the problems and carry on.
import { TextDecoder } from "node:util";
import TOML from "@iarna/toml";
import { deepFreeze } from "./freeze.ts";
import { locate } from "./locate.ts";
import { Findings } from "./problems.ts";
import type { ManifestProblem, ManifestResult } from "./types.ts";
import { validate } from "./validate.ts";

/** The manifest from its text, or from the file's bytes, which must be UTF-8. */
export function parseManifest(input: string | Uint8Array, file: string): ManifestResult {
  const text = typeof input === "string" ? input : decodeUtf8(input, file);
  if (typeof text !== "string") return deepFreeze({ ok: false, errors: [text], warnings: [] });
  // Editors on some systems start UTF-8 files with a byte order mark; it is not part of the TOML.
  const source = text.startsWith("\uFEFF") ? text.slice(1) : text;
  let doc: TOML.JsonMap;
  try {
    doc = TOML.parse(source);
  } catch (error) {
    return deepFreeze({ ok: false, errors: [syntaxProblem(error, file, source)], warnings: [] });
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

/**
 * The bytes as text, or the problem at the first byte that is not UTF-8: decoded anyway,
 * such a byte would become U+FFFD and either fail the parse with a number for a character or
 * slip into a value unseen.
 */
function decodeUtf8(bytes: Uint8Array, file: string): string | ManifestProblem {
  const strict = new TextDecoder("utf-8", { fatal: true });
  try {
    return strict.decode(bytes);
  } catch {
    // The decoder's error only says that the bytes are not UTF-8: the problem below says where.
    const at = firstInvalidByte(bytes, strict);
    const before = strict.decode(bytes.subarray(0, at));
    const line = before.split("\n").length;
    const col = before.length - before.lastIndexOf("\n");
    const byte = (bytes[at] ?? 0).toString(16).padStart(2, "0");
    return {
      file,
      line,
      col,
      message: `a byte that is not UTF-8 (0x${byte})`,
      hint: "save the manifest as UTF-8; an editor's encoding setting or iconv -t UTF-8 converts it",
    };
  }
}

function firstInvalidByte(bytes: Uint8Array, strict: TextDecoder): number {
  let i = 0;
  while (i < bytes.length) {
    const lead = bytes[i] as number;
    const length =
      lead < 0x80 ? 1 : lead >> 5 === 6 ? 2 : lead >> 4 === 14 ? 3 : lead >> 3 === 30 ? 4 : 0;
    if (length === 0 || i + length > bytes.length) return i;
    try {
      strict.decode(bytes.subarray(i, i + length));
    } catch {
      // This sequence is the first invalid one: its offset is the answer.
      return i;
    }
    i += length;
  }
  return i;
}

/** The parser's own words, without its position suffix and its multi-line excerpt. */
function syntaxProblem(error: unknown, file: string, source: string): ManifestProblem {
  const parsed = error as { message?: unknown; line?: unknown; col?: unknown };
  const firstLine = String(parsed.message ?? error).split("\n")[0] ?? "";
  const said = firstLine.replace(/ at row \d+, col \d+, pos \d+:?$/, "").trim();
  const what = inWords(said.replace(/( undefined)+$/, "")) || "not valid TOML";
  // The parser counts lines and columns from 0, and reports an unknown character one past it.
  const line = typeof parsed.line === "number" ? parsed.line + 1 : 1;
  const col = typeof parsed.col === "number" ? parsed.col + 1 : 1;
  const unknown = /^Unknown character/.test(said);
  const shift = unknown && col > 1 ? 1 : 0;
  return {
    file,
    line,
    col: col - shift,
    message: lowerFirst(what),
    hint: syntaxHint(what, source),
  };
}

// The parser names a character by its number ("Unknown character \"123\""): name it as a
// character, as the operator typed it.
function inWords(said: string): string {
  return said
    .replace(
      /^Unknown character "(\d+)"/,
      (_, code: string) => `unexpected ${character(Number(code))}`,
    )
    .replace(/^Unknown escape character: (\d+)/, (_, code: string) => {
      // Past the last code point is the parser's end of input: a "\" that ends the file.
      const n = Number(code);
      return n > 0x10ffff
        ? `a "\\" at the end of the file`
        : `unknown escape "\\${String.fromCodePoint(n)}"`;
    });
}

function character(code: number): string {
  if (code === 0x09) return "a tab";
  if (code === 0x0a || code === 0x0d) return "an end of line";
  if (code < 0x20 || code === 0x7f)
    return `the control character U+${code.toString(16).toUpperCase().padStart(4, "0")}`;
  if (code > 0x10ffff) return "the end of the file";
  return JSON.stringify(String.fromCodePoint(code));
}

function syntaxHint(what: string, source: string): string {
  if (/^unexpected "\{"/.test(what) && /^\s*\{/.test(source))
    return "the manifest is TOML, not JSON: write key = value lines, as docs/manifest.md shows";
  if (/redefine/i.test(what)) return "each key and each [table] may appear only once";
  if (/single type/i.test(what)) return "every element of an array must have the same type";
  if (/unterminated/i.test(what)) return "close the string with the quote that opened it";
  if (/without value/i.test(what)) return "write a value after the =, e.g. a quoted string";
  return "the manifest is TOML v0.5, see https://toml.io/en/v0.5.0";
}

function lowerFirst(text: string): string {
  return text.charAt(0).toLowerCase() + text.slice(1);
}
