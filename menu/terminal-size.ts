// The terminal's size: the kernel's when it knows it (a screen's console), else asked of the
// terminal itself (a serial line). Apart from the menu's terminal (terminal.ts), which loads
// blessed: the menu asks first thing, before it loads the rest of itself.
import type { Readable, Writable } from "node:stream";
import type { Size } from "./types.ts";

export const FALLBACK_SIZE: Size = { cols: 80, rows: 24 };
/**
 * How long the first screen waits for the terminal's answer to the size question, from the
 * menu's start (the question goes out before the menu loads and reads the manifest). A
 * serial terminal answers in milliseconds, a BMC's serial-over-LAN in tens of them; a slow
 * machine (or a VM under emulation) may read the answer later: one that comes after this
 * still sets the size (terminal.ts keyInput), so a console that never answers (QEMU's, in
 * the tests) costs only what of this the menu's own start did not take.
 */
export const SIZE_QUERY_MS = 300;

export interface TtyInput extends Readable {
  readonly isRaw?: boolean;
  setRawMode?(mode: boolean): unknown;
}

export interface TtyOutput extends Writable {
  columns?: number;
  rows?: number;
}

/** The terminal's size: the kernel's when it knows it, else the terminal's answer, else 80x24. */
export async function terminalSize(
  input: TtyInput,
  output: TtyOutput,
  timeoutMs = SIZE_QUERY_MS,
): Promise<Size> {
  const { columns, rows } = output;
  if (columns && rows && columns > 0 && rows > 0) return { cols: columns, rows };
  return (await querySize(input, output, timeoutMs)) ?? FALLBACK_SIZE;
}

/**
 * Asks the terminal where the cursor lands when sent to row 999, column 999 (it stops at the
 * last row and column) and reads the answer, ESC [ row ; col R. Undefined without an answer.
 */
export function querySize(
  input: TtyInput,
  output: Writable,
  timeoutMs = SIZE_QUERY_MS,
): Promise<Size | undefined> {
  return new Promise((done) => {
    const wasRaw = input.isRaw === true;
    let answer = "";
    const finish = (size: Size | undefined) => {
      clearTimeout(timer);
      input.off("data", onData);
      input.pause();
      input.setRawMode?.(wasRaw);
      done(size);
    };
    const onData = (chunk: Buffer | string) => {
      answer += typeof chunk === "string" ? chunk : chunk.toString("latin1");
      // biome-ignore lint/suspicious/noControlCharactersInRegex: the answer starts with ESC
      const m = /\x1b\[(\d+);(\d+)R/.exec(answer);
      if (!m) return;
      const rows = Number(m[1]);
      const cols = Number(m[2]);
      finish(rows > 0 && cols > 0 ? { cols, rows } : undefined);
    };
    const timer = setTimeout(() => finish(undefined), timeoutMs);
    input.setRawMode?.(true);
    input.on("data", onData);
    input.resume();
    // Save the cursor, go as far as the terminal allows, ask where that is, come back.
    output.write("\x1b7\x1b[999;999H\x1b[6n\x1b8");
  });
}
