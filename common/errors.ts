// Errors a person can meet. Each says what is wrong and what to do; one table maps the
// kind of error to the exit code (docs/design.md section 2: 0 done, 1 refused or failed, 2 usage).

export type ErrorKind =
  /** The command line is wrong: exit 2. */
  | "usage"
  /** The input or the machine makes the request impossible; nothing was written: exit 1. */
  | "refused"
  /** Something broke while doing the work: exit 1. */
  | "failed";

const EXIT_CODES: Readonly<Record<ErrorKind, number>> = { usage: 2, refused: 1, failed: 1 };

export interface LikenErrorInit {
  readonly kind: ErrorKind;
  /** What is wrong, in a few words a person reads. */
  readonly what: string;
  /** What to do about it. */
  readonly hint: string;
  /** The closed-enum status reason (`DiskNotBlank`, `MissingDriver`, ...), if any. */
  readonly reason?: string;
  readonly cause?: unknown;
}

/** An error with the operator's next step: one line, `what (hint)`. */
export class LikenError extends Error {
  override readonly name = "LikenError";
  readonly kind: ErrorKind;
  readonly what: string;
  readonly hint: string;
  readonly reason: string | undefined;
  constructor(init: LikenErrorInit) {
    super(`${init.what} (${init.hint})`, "cause" in init ? { cause: init.cause } : undefined);
    this.kind = init.kind;
    this.what = init.what;
    this.hint = init.hint;
    this.reason = init.reason;
  }
}

export function usageError(what: string, hint: string): LikenError {
  return new LikenError({ kind: "usage", what, hint });
}

/** The exit code for any thrown value: LikenErrors by kind, anything else is a failure. */
export function exitCodeFor(error: unknown): number {
  return error instanceof LikenError ? EXIT_CODES[error.kind] : 1;
}

/**
 * Any thrown value as one line: a LikenError says what is wrong and what to do; any other
 * error keeps its whole chain of causes.
 */
export function oneLine(error: unknown): string {
  if (error instanceof LikenError) return error.message;
  if (error instanceof Error) {
    const chain: string[] = [];
    for (let e: unknown = error; e instanceof Error; e = e.cause) chain.push(e.message);
    return chain.join(": ");
  }
  return String(error);
}

/** The first line of any thrown value's message: for a console line or a condition's message. */
export function firstLine(error: unknown): string {
  return (error instanceof Error ? error.message : String(error)).split("\n")[0] ?? "";
}
