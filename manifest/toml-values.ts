// What TOML.parse hands back, told apart the way the manifest's rules need.

export type TomlTable = { readonly [key: string]: unknown };

export function isTable(value: unknown): value is TomlTable {
  return (
    typeof value === "object" && value !== null && !Array.isArray(value) && !(value instanceof Date)
  );
}

/**
 * TOML.parse gives 1.0 and 1 as the same number; the source text (`raw`) tells them apart.
 * Integers beyond 2^53 arrive as bigints.
 */
export function isInteger(value: unknown, raw: string | undefined): boolean {
  if (typeof value === "bigint") return true;
  if (typeof value !== "number" || !Number.isInteger(value)) return false;
  return raw === undefined || /^[+-]?0[xob]/.test(raw) || !/[.eE]|inf|nan/.test(raw);
}

/** The TOML type of a value, with its article: "an integer", "a table". */
export function kindOf(value: unknown, raw: string | undefined): string {
  if (typeof value === "string") return "a string";
  if (typeof value === "boolean") return "a boolean";
  if (typeof value === "number" || typeof value === "bigint") {
    return isInteger(value, raw) ? "an integer" : "a float";
  }
  if (Array.isArray(value)) return "an array";
  if (isTable(value)) return "a table";
  return "a date-time";
}

/** The offending value in double quotes: a string's text, or anything else as written. */
export function quoted(value: unknown, raw: string | undefined): string {
  if (typeof value === "string") return JSON.stringify(value);
  return JSON.stringify(raw ?? String(value));
}
