// The terminal's size when the kernel does not know it, what the painter writes, and the
// keys as the model gets them.
import { PassThrough } from "node:stream";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { keyInput, keyTranslator, Terminal } from "./terminal.ts";
import { FALLBACK_SIZE, querySize, terminalSize } from "./terminal-size.ts";

// A serial line: input and output, no size, raw mode recorded.
function serial(answer?: string) {
  const input = Object.assign(new PassThrough(), {
    isRaw: false,
    setRawMode(mode: boolean) {
      this.isRaw = mode;
      return this;
    },
  });
  const output = Object.assign(new PassThrough(), { columns: 0, rows: 0 });
  const written: string[] = [];
  output.on("data", (d: Buffer) => {
    written.push(d.toString("latin1"));
    // The terminal answers in two reads, as a slow line may.
    if (answer) {
      input.write(answer.slice(0, 3));
      setImmediate(() => input.write(answer.slice(3)));
    }
  });
  return { input, output, written };
}

describe("the size of a terminal that reports 0x0", () => {
  it("asks the terminal where the cursor stops at row 999, column 999", async () => {
    const { input, output, written } = serial("\x1b[50;132R");
    expect(await querySize(input, output, 1000)).toEqual({ cols: 132, rows: 50 });
    expect(written.join("")).toBe("\x1b7\x1b[999;999H\x1b[6n\x1b8");
    expect(input.isRaw).toBe(false);
  });

  it("falls back to 80x24 when the terminal does not answer", async () => {
    const { input, output } = serial();
    const started = Date.now();
    expect(await terminalSize(input, output, 50)).toEqual(FALLBACK_SIZE);
    expect(Date.now() - started).toBeLessThan(1000);
  });

  it("uses the kernel's size when it has one, without asking", async () => {
    const { input, output, written } = serial("\x1b[50;132R");
    Object.assign(output, { columns: 100, rows: 30 });
    expect(await terminalSize(input, output, 50)).toEqual({ cols: 100, rows: 30 });
    expect(written).toEqual([]);
  });
});

describe("the painter", () => {
  it("writes plain ANSI for every terminal: cursor moves, erase to end of line, reverse video", () => {
    for (const term of ["linux", "vt220", "xterm-256color"]) {
      const { input, output, written } = serial();
      const terminal = new Terminal(input, output, term, { cols: 80, rows: 24 });
      written.length = 0;
      terminal.paint({
        lines: ["liken stick", "> Install as leader-1"],
        highlight: 1,
        cursor: { row: 1, col: 0 },
      });
      expect(written.join("")).toBe(
        "\x1b[1;1Hliken stick\x1b[K\x1b[2;1H\x1b[7m> Install as leader-1\x1b[0m\x1b[K\x1b[2;1H",
      );
      // Only what changed is written again.
      written.length = 0;
      terminal.paint({
        lines: ["liken stick", "> Install as worker-1"],
        highlight: 1,
        cursor: { row: 1, col: 0 },
      });
      expect(written.join("")).toBe("\x1b[2;1H\x1b[7m> Install as worker-1\x1b[0m\x1b[K\x1b[2;1H");
      terminal.close();
    }
  });
});

describe("keys", () => {
  it("turns blessed's keypresses into the model's", () => {
    const t = keyTranslator();
    expect(t(undefined, { name: "up" })).toEqual({ key: "up" });
    expect(t("j", { name: "j" })).toEqual({ key: "char", ch: "j" });
    expect(t("-", undefined)).toEqual({ key: "char", ch: "-" });
    expect(t(" ", { name: "space" })).toEqual({ key: "char", ch: " " });
    expect(t("\x7f", { name: "backspace" })).toEqual({ key: "backspace" });
    expect(t(undefined, { name: "c", ctrl: true })).toBeUndefined();
    expect(t(undefined, { name: "l", ctrl: true })).toEqual({ key: "redraw" });
    expect(t(undefined, { name: "right" })).toBeUndefined();
  });

  it("counts CR, and CR LF in one read, as one Enter; LF alone is Enter too", async () => {
    const t = keyTranslator();
    // blessed: "enter" (from CR), then "return", then "linefeed" for the LF of CR LF.
    expect(t("\r", { name: "enter" })).toEqual({ key: "enter" });
    expect(t("\r", { name: "return" })).toBeUndefined();
    expect(t("\n", { name: "linefeed" })).toBeUndefined();
    await new Promise((r) => setImmediate(r));
    expect(t("\n", { name: "linefeed" })).toEqual({ key: "enter" });
  });
});

describe("keys from a serial line", () => {
  // The clock is the test's: a loaded machine that let 5 ms run past the 30 ms wait for the
  // rest of an escape sequence failed these once.
  beforeEach(() => {
    vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout"] });
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  // What blessed reads from keyInput(), chunk by chunk.
  function line() {
    const tty = new PassThrough();
    const read: string[] = [];
    const sizes: unknown[] = [];
    keyInput(tty, 30, (s) => sizes.push(s)).on("data", (d: Buffer) =>
      read.push(d.toString("utf8")),
    );
    const settle = (ms: number) => vi.advanceTimersByTimeAsync(ms);
    return { tty, read, sizes, settle };
  }

  it("passes whole reads on as they come", async () => {
    const { tty, read, settle } = line();
    tty.write("j");
    tty.write("\x1b[B\r");
    await settle(5);
    expect(read).toEqual(["j", "\x1b[B\r"]);
  });

  it("joins an arrow key split over two reads, so it is not Esc and two letters", async () => {
    const { tty, read, settle } = line();
    tty.write("k\x1b");
    await settle(5);
    tty.write("[B");
    await settle(5);
    expect(read).toEqual(["k", "\x1b[B"]);
  });

  it("lets Esc alone through once the rest does not come", async () => {
    const { tty, read, settle } = line();
    tty.write("\x1b");
    await settle(5);
    expect(read).toEqual([]);
    await settle(60);
    expect(read).toEqual(["\x1b"]);
  });

  it("takes a size answer that came after the menu stopped waiting as the size, not as keys", async () => {
    const { tty, read, sizes, settle } = line();
    tty.write("\x1b[30;");
    await settle(5);
    tty.write("100Rj");
    await settle(5);
    expect(read).toEqual(["j"]);
    expect(sizes).toEqual([{ cols: 100, rows: 30 }]);
  });
});
