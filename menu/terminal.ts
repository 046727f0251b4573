// The terminal under the menu: blessed's Program for the escape sequences and the keys, and
// a painter that rewrites only the lines that changed.
import { PassThrough, type Readable } from "node:stream";
import { StringDecoder } from "node:string_decoder";
import Program from "blessed/lib/program.js";
import type { TtyInput, TtyOutput } from "./terminal-size.ts";
import type { KeyName, Size } from "./types.ts";
import type { Frame } from "./view.ts";

/** How long an escape sequence cut off at the end of a read waits for its rest. */
export const ESCAPE_WAIT_MS = 50;

// An escape sequence that a key could still complete: ESC, ESC [ or ESC O, and parameters.
// biome-ignore lint/suspicious/noControlCharactersInRegex: escape sequences are what this holds back
const CUT_ESCAPE = /\x1b(?:\[[0-9;]*|O)?$/;
// The terminal's answer to the size question (ESC [ row ; col R): never a key.
// biome-ignore lint/suspicious/noControlCharactersInRegex: the answer starts with ESC
const POSITION_REPORT = /\x1b\[(\d+);(\d+)R/g;

/**
 * The keys of `input` as blessed should read them. A serial line can deliver a key's
 * escape sequence in two reads (ESC, then [B), which blessed would take for Esc and two
 * letters: a sequence cut off at the end of a read waits up to `waitMs` for its rest. A
 * size answer that came after the menu stopped waiting for it is not typed: it goes to
 * `onSize`.
 */
export function keyInput(
  input: Readable,
  waitMs = ESCAPE_WAIT_MS,
  onSize: (size: Size) => void = () => undefined,
): PassThrough {
  const out = new PassThrough();
  const decoder = new StringDecoder("utf8");
  let held = "";
  let timer: NodeJS.Timeout | undefined;
  const release = () => {
    timer = undefined;
    const rest = held;
    held = "";
    if (rest) out.write(rest);
  };
  input.on("data", (chunk: Buffer | string) => {
    clearTimeout(timer);
    let text = held + (typeof chunk === "string" ? chunk : decoder.write(chunk));
    held = "";
    text = text.replace(POSITION_REPORT, (_, rows: string, cols: string) => {
      if (Number(rows) > 0 && Number(cols) > 0) onSize({ cols: Number(cols), rows: Number(rows) });
      return "";
    });
    const cut = CUT_ESCAPE.exec(text);
    if (cut && cut[0].length <= 16) {
      held = cut[0];
      text = text.slice(0, cut.index);
      timer = setTimeout(release, waitMs);
    }
    if (text) out.write(text);
  });
  return out;
}

/** A key as the model knows it, from blessed's keypress (ch, key). */
export interface MenuKey {
  readonly key: KeyName;
  readonly ch?: string;
}

interface BlessedKey {
  readonly name?: string;
  readonly ctrl?: boolean;
  readonly meta?: boolean;
}

const NAMED: Readonly<Record<string, KeyName>> = {
  up: "up",
  down: "down",
  enter: "enter",
  escape: "escape",
  backspace: "backspace",
  delete: "backspace",
  pageup: "pageup",
  pagedown: "pagedown",
  home: "home",
  end: "end",
};

/**
 * Turns blessed's keypresses into the model's keys. Enter arrives from blessed twice for a
 * carriage return ("enter", then "return"); a terminal that sends CR LF would add a
 * "linefeed" in the same read, which must not count as a second Enter.
 */
export function keyTranslator(): (
  ch: string | undefined,
  key: BlessedKey | undefined,
) => MenuKey | undefined {
  let afterReturn = false;
  return (ch, key) => {
    const name = key?.name;
    if (name === "return") {
      afterReturn = true;
      // Only the rest of this read counts as the same Enter.
      setImmediate(() => {
        afterReturn = false;
      });
      return undefined;
    }
    if (name === "linefeed") return afterReturn ? undefined : { key: "enter" };
    if (key?.ctrl && name === "l") return { key: "redraw" };
    if (key?.ctrl || key?.meta) return name === "backspace" ? { key: "backspace" } : undefined;
    const named = name ? NAMED[name] : undefined;
    if (named) return { key: named };
    if (name === "space") return { key: "char", ch: " " };
    if (ch && /^[\x20-\x7e]$/.test(ch)) return { key: "char", ch };
    return undefined;
  };
}

/** The terminal while the menu owns it. */
export class Terminal {
  private readonly program: Program;
  private shown: string[] = [];
  private resized: (size: Size) => void = () => undefined;
  private readonly restoreOnExit = () => this.restore();
  private closed = false;

  constructor(
    readonly input: TtyInput,
    readonly output: TtyOutput,
    term: string,
    private size: Size,
  ) {
    this.program = new Program({
      // Raw mode, pause and resume stay with `input`; blessed reads the keys whole.
      input: keyInput(input, ESCAPE_WAIT_MS, (s) => this.sizeChanged(s)),
      output,
      terminal: term || "vt100",
      // Plain ANSI sequences, not the terminfo entry: blessed compiles a whole entry into
      // functions, half a second of the menu's start under emulation, and the menu sends
      // only cursor moves, erase to end of line, SGR 7 and 0 and the alternate screen, which
      // blessed writes for the linux console, VT100s and xterms alike.
      tput: false,
      zero: true,
      buffer: true,
    });
    this.program.cols = size.cols;
    this.program.rows = size.rows;
    process.once("exit", this.restoreOnExit);
    this.enter();
  }

  /** Calls `listener` with every key the model knows. */
  onKey(listener: (key: MenuKey) => void): void {
    const translate = keyTranslator();
    this.program.on("keypress", (ch: string | undefined, key: BlessedKey | undefined) => {
      const k = translate(ch, key);
      if (k) listener(k);
    });
  }

  /**
   * Calls `listener` with the new size when the kernel reports one (never on a serial line)
   * or when the terminal answers the size question after the menu stopped waiting for it.
   */
  onResize(listener: (size: Size) => void): void {
    this.resized = listener;
    this.program.on("resize", () => {
      const { columns, rows } = this.output;
      if (columns && rows) this.sizeChanged({ cols: columns, rows });
    });
  }

  private sizeChanged(size: Size): void {
    if (size.cols === this.size.cols && size.rows === this.size.rows) return;
    this.size = size;
    this.program.cols = size.cols;
    this.program.rows = size.rows;
    this.shown = [];
    this.program.clear();
    this.resized(size);
  }

  /** Forgets what the screen shows: the next paint draws every line. */
  invalidate(): void {
    this.shown = [];
    this.program.clear();
  }

  /** Draws the frame: each line that changed is rewritten, the rest left alone. */
  paint(frame: Frame): void {
    const p = this.program;
    frame.lines.forEach((line, i) => {
      const highlighted = frame.highlight === i;
      const key = highlighted ? `\u0000${line}` : line;
      if (this.shown[i] === key) return;
      p.cup(i, 0);
      // SGR 7 and SGR 0: reverse video on and everything off, known to every VT100 since 1978.
      p.print(highlighted ? `\x1b[7m${line}\x1b[0m` : line);
      p.el();
      this.shown[i] = key;
    });
    p.cup(frame.cursor.row, frame.cursor.col);
    p.flush();
  }

  /** Gives the terminal to `body` (the shell) with the screen cleared, and takes it back. */
  async lend<T>(body: () => Promise<T>): Promise<T> {
    this.leave();
    try {
      return await body();
    } finally {
      this.enter();
    }
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.leave();
    process.off("exit", this.restoreOnExit);
    this.program.destroy();
  }

  private enter(): void {
    this.input.setRawMode?.(true);
    this.input.resume();
    this.program.alternateBuffer();
    this.program.hideCursor();
    this.program.clear();
    this.program.flush();
    this.shown = [];
  }

  private leave(): void {
    this.program.clear();
    this.program.showCursor();
    this.program.normalBuffer();
    this.program.flush();
    this.input.setRawMode?.(false);
    this.input.pause();
  }

  // The process ends while the menu shows (a signal, a crash): give the console back usable.
  private restore(): void {
    if (this.closed) return;
    this.program.showCursor();
    this.program.normalBuffer();
    this.program.flush();
    this.input.setRawMode?.(false);
  }
}
