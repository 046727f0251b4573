// A VM's serial console as the QEMU tests read it: raw bytes in, text without terminal
// escape sequences out, waits for a line with a deadline, and a watch for kernel crashes.
// No QEMU in here: the harness pushes what the serial socket delivers, and the tests of
// this file push text of their own.

/** What fails a test by itself when it shows up on the console (unless a crash is expected). */
export const PANIC_PATTERN = /Kernel panic|Oops:|BUG:/;

/** The line's crash marker, if it has one. */
export function findPanic(line: string): string | undefined {
  return PANIC_PATTERN.exec(line)?.[0];
}

// CSI (ESC [ ... final), OSC (ESC ] ... BEL or ESC \), charset selection (ESC ( B) and the
// two-byte escapes (ESC 7, ESC c, ...).
// biome-ignore lint/suspicious/noControlCharactersInRegex: escape sequences are what this removes
const ESCAPE = /\x1b(?:\[[0-?]*[ -/]*[@-~]|\][^\x07\x1b]*(?:\x07|\x1b\\)|[()*+][ -~]|[ -~])/g;
// An escape sequence cut off at the end of a chunk: held back until the rest arrives.
// biome-ignore lint/suspicious/noControlCharactersInRegex: escape sequences are what this holds back
const UNFINISHED_ESCAPE = /\x1b(?:\[[0-?]*[ -/]*|\][^\x07\x1b]*\x1b?|[()*+])?$/;
// Control characters other than tab and newline (carriage returns, bells, NULs).
// biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what this removes
const CONTROL = /[\x00-\x08\x0b-\x1f\x7f]/g;

/** `text` without escape sequences and control characters (newlines and tabs stay). */
export function stripAnsi(text: string): string {
  return text.replace(ESCAPE, "").replace(CONTROL, "");
}

/** Splits `raw` into what can be stripped now and an unfinished escape sequence at its end. */
export function splitUnfinishedEscape(raw: string): [done: string, unfinished: string] {
  const m = UNFINISHED_ESCAPE.exec(raw);
  if (!m || m[0].length > 256) return [raw, ""];
  return [raw.slice(0, m.index), m[0]];
}

/** Why waitFor gave up: the deadline passed, the kernel crashed, or the VM is gone. */
export class ConsoleWaitError extends Error {
  override readonly name = "ConsoleWaitError";
  constructor(
    readonly kind: "timeout" | "panic" | "ended",
    what: string,
    /** The console's last lines, also in the message. */
    readonly tail: string,
  ) {
    super(`${what}\n--- the console's last lines ---\n${tail}`);
  }
}

interface Waiter {
  readonly pattern: string | RegExp;
  /** Where this waiter's next scan starts: always the start of a line. */
  from: number;
  /** Set while the line being printed matches: when it fires, that line as it is counts. */
  partial: NodeJS.Timeout | undefined;
  readonly resolve: (line: string) => void;
  readonly reject: (error: Error) => void;
}

export const TAIL_LINES = 40;
/**
 * How long a match in the line still being printed waits for the rest of that line, so
 * that waitFor returns whole lines; a prompt that never ends its line counts after this.
 */
export const PARTIAL_LINE_GRACE_MS = 200;

export class ConsoleText {
  #raw = "";
  #unfinished = "";
  #text = "";
  /** Everything before this offset of the text was matched by an earlier waitFor. */
  #cursor = 0;
  #panicFrom = 0;
  #panic: string | undefined;
  #ended: string | undefined;
  readonly #waiters = new Set<Waiter>();
  readonly #expectPanic: boolean;

  constructor(options: { readonly expectPanic?: boolean } = {}) {
    this.#expectPanic = options.expectPanic ?? false;
  }

  /** Everything received, escape sequences and all. */
  get raw(): string {
    return this.#raw;
  }

  /** Everything received, as text: no escape sequences, no carriage returns. */
  get text(): string {
    return this.#text;
  }

  /** The first line that showed a kernel crash, if any did. */
  get panic(): string | undefined {
    return this.#panic;
  }

  /** The last `lines` lines of the text. */
  tail(lines = TAIL_LINES): string {
    return this.#text.replace(/\n+$/, "").split("\n").slice(-lines).join("\n");
  }

  /** Adds what the console printed. */
  push(chunk: string): void {
    if (chunk === "") return;
    this.#raw += chunk;
    const [done, unfinished] = splitUnfinishedEscape(this.#unfinished + chunk);
    this.#unfinished = unfinished;
    this.#text += stripAnsi(done);
    this.#watchForPanic();
    for (const waiter of this.#waiters) this.#scan(waiter);
  }

  /** The console is gone for good (the VM stopped): every wait still open fails with `why`. */
  end(why: string): void {
    this.#ended ??= why;
    for (const waiter of this.#waiters) this.#fail(waiter, "ended", this.#ended);
  }

  /**
   * Resolves with the first line after the last match that contains `pattern` (a string,
   * or a RegExp tested against each line; the line still being printed counts too), and
   * moves the cursor past that match. Rejects with a ConsoleWaitError holding the console's
   * last 40 lines after `timeoutMs`, at once when a kernel crash shows (unless expected),
   * or when the VM stops.
   */
  waitFor(pattern: string | RegExp, timeoutMs: number): Promise<string> {
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.#fail(
          waiter,
          "timeout",
          `no ${describePattern(pattern)} on the console within ${timeoutMs / 1000} s`,
        );
      }, timeoutMs);
      const waiter: Waiter = {
        pattern: typeof pattern === "string" ? pattern : withoutGlobalFlags(pattern),
        from: this.#cursor,
        partial: undefined,
        resolve: (line) => {
          clearTimeout(timer);
          clearTimeout(waiter.partial);
          resolve(line);
        },
        reject: (error) => {
          clearTimeout(timer);
          clearTimeout(waiter.partial);
          reject(error);
        },
      };
      this.#waiters.add(waiter);
      this.#scan(waiter);
      if (!this.#waiters.has(waiter)) return;
      if (this.#ended !== undefined) this.#fail(waiter, "ended", this.#ended);
    });
  }

  #scan(waiter: Waiter, partialLineCounts = false): void {
    const text = this.#text;
    let start = Math.max(waiter.from, this.#cursor);
    while (start <= text.length) {
      const newline = text.indexOf("\n", start);
      const end = newline < 0 ? text.length : newline;
      const line = text.slice(start, end);
      const matchEnd = matchLine(waiter.pattern, line);
      if (matchEnd !== undefined && newline < 0 && !partialLineCounts) {
        // The line is still being printed: give it a moment to end.
        waiter.partial ??= setTimeout(() => {
          waiter.partial = undefined;
          if (this.#waiters.has(waiter)) this.#scan(waiter, true);
        }, PARTIAL_LINE_GRACE_MS);
        break;
      }
      if (matchEnd !== undefined) {
        this.#waiters.delete(waiter);
        this.#cursor = start + matchEnd;
        waiter.resolve(line);
        return;
      }
      if (newline < 0) break; // the line being printed: scanned again when it grows
      start = newline + 1;
    }
    waiter.from = start;
    if (this.#panic !== undefined && !this.#expectPanic) {
      this.#fail(
        waiter,
        "panic",
        `the kernel crashed while waiting for ${describePattern(waiter.pattern)}: ${this.#panic}`,
      );
    }
  }

  #watchForPanic(): void {
    if (this.#panic !== undefined) return;
    const text = this.#text;
    let start = this.#panicFrom;
    while (start <= text.length) {
      const newline = text.indexOf("\n", start);
      const line = text.slice(start, newline < 0 ? text.length : newline);
      if (findPanic(line) !== undefined) {
        this.#panic = line.trim();
        return;
      }
      if (newline < 0) break;
      start = newline + 1;
    }
    this.#panicFrom = start;
  }

  #fail(waiter: Waiter, kind: ConsoleWaitError["kind"], what: string): void {
    if (!this.#waiters.delete(waiter)) return;
    waiter.reject(new ConsoleWaitError(kind, what, this.tail()));
  }
}

/** Where a match of `pattern` in `line` ends, or undefined when it does not match. */
function matchLine(pattern: string | RegExp, line: string): number | undefined {
  if (typeof pattern === "string") {
    const i = line.indexOf(pattern);
    return i < 0 ? undefined : i + pattern.length;
  }
  const m = pattern.exec(line);
  return m ? m.index + m[0].length : undefined;
}

// A /g or /y RegExp remembers lastIndex between tests; a copy without them does not.
function withoutGlobalFlags(pattern: RegExp): RegExp {
  return new RegExp(pattern.source, pattern.flags.replace(/[gy]/g, ""));
}

function describePattern(pattern: string | RegExp): string {
  return typeof pattern === "string" ? JSON.stringify(pattern) : String(pattern);
}
