// A refusal or failure as a program reads it under --json: one shape on every verb, on
// stdout beside the usual line on stderr (docs/design.md section 2).
import { LikenError, oneLine } from "../common/errors.ts";

export interface JsonError {
  readonly kind: "usage" | "refused" | "failed";
  /** The closed-enum reason: the error's own, else one named for its kind. */
  readonly reason: string;
  readonly what: string;
  readonly hint: string;
}

/** What an error the code did not expect asks of the operator. */
export const BUG_HINT = "this may be a bug in liken-stick: please report it with this line";

// Reasons for the errors that carry none of their own, so a program always has one to test.
const KIND_REASONS = { usage: "UsageError", refused: "Refused", failed: "Failed" } as const;

export function jsonError(error: unknown): JsonError {
  if (error instanceof LikenError)
    return {
      kind: error.kind,
      reason: error.reason ?? KIND_REASONS[error.kind],
      what: error.what,
      hint: error.hint,
    };
  return { kind: "failed", reason: "InternalError", what: oneLine(error), hint: BUG_HINT };
}

/**
 * The document a failed verb prints: what it printed before it failed (plan's considered
 * disks, install's status document, the report --save could not save) with `error` added,
 * or `{ "error": ... }` alone when it printed nothing.
 */
export function failureDocument(printed: string, error: unknown): string {
  const body = { error: jsonError(error) };
  let doc: unknown;
  try {
    doc = printed.trim() === "" ? undefined : JSON.parse(printed);
  } catch {
    // Output that is not one JSON document is kept as the text it was.
    doc = printed;
  }
  const merged =
    doc === undefined
      ? body
      : typeof doc === "object" && doc !== null && !Array.isArray(doc)
        ? { ...doc, ...body }
        : { output: doc, ...body };
  return `${JSON.stringify(merged, null, 2)}\n`;
}
