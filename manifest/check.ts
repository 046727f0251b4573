// What every rule needs: the parsed values, where they are written, and where to report.
import {
  type KeyPath,
  keyPos,
  type SourceMap,
  type SourcePos,
  tablePos,
  valuePos,
} from "./locate.ts";
import { misplacedAdvice } from "./misplaced.ts";
import type { Findings } from "./problems.ts";
import { allowedHint, nearest } from "./suggest.ts";
import { kindOf, type TomlTable } from "./toml-values.ts";

export class Check {
  constructor(
    private readonly map: SourceMap,
    readonly found: Findings,
  ) {}

  /** Where the key itself is written: for unknown keys. */
  keyPos(path: KeyPath): SourcePos {
    return keyPos(this.map, path);
  }

  /** Where the value is written: for values of the wrong type or form. */
  valuePos(path: KeyPath): SourcePos {
    return valuePos(this.map, path);
  }

  /** The header (or key) of the table at `path`: for keys missing from it. */
  tablePos(path: KeyPath): SourcePos {
    return tablePos(this.map, path);
  }

  raw(path: KeyPath): string | undefined {
    return this.map.raw(path);
  }

  error(pos: SourcePos, message: string, hint: string): void {
    this.found.error(pos, message, hint);
  }

  warn(pos: SourcePos, message: string, hint: string): void {
    this.found.warn(pos, message, hint);
  }

  /**
   * Reports each key of `table` that is not in `allowed`. `where` names the table in the
   * message ("in [layout]"). A near miss gets a did-you-mean; a key that belongs in
   * another table gets told which.
   */
  unknownKeys(table: TomlTable, path: KeyPath, allowed: readonly string[], where: string): void {
    for (const key of Object.keys(table)) {
      if (allowed.includes(key)) continue;
      const moved = nearest(key, allowed) === undefined ? misplacedAdvice(key, where) : undefined;
      const hint =
        moved === undefined
          ? allowedHint(key, allowed)
          : `${moved}; allowed here: ${allowed.join(", ")}`;
      this.error(this.keyPos([...path, key]), `unknown key ${JSON.stringify(key)} ${where}`, hint);
    }
  }

  /** `label must be <expected>, not <what it is>`, at the value. */
  wrongType(path: KeyPath, value: unknown, label: string, expected: string, hint: string): void {
    const actual = kindOf(value, this.raw(path));
    this.error(this.valuePos(path), `${label} must be ${expected}, not ${actual}`, hint);
  }

  /** The string at `table[key]`, undefined when it is absent or (reported) not a string. */
  optionalString(
    table: TomlTable,
    path: KeyPath,
    key: string,
    label: string,
    hint: string,
  ): string | undefined {
    const value = table[key];
    if (value === undefined) return undefined;
    if (typeof value === "string") return value;
    this.wrongType([...path, key], value, label, "a string", hint);
    return undefined;
  }
}
