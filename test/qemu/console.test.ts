// The console reader on its own, fed text the way the serial socket delivers it: in
// chunks that cut lines and escape sequences anywhere.
import { describe, expect, it } from "vitest";
import {
  ConsoleText,
  type ConsoleWaitError,
  findPanic,
  PARTIAL_LINE_GRACE_MS,
  splitUnfinishedEscape,
  stripAnsi,
} from "./console.ts";

const OVMF_START = "\x1b[2J\x1b[01;01H\x1b[=3h\x1b[2J\x1b[01;01H";

describe("stripAnsi", () => {
  it("removes OVMF's screen codes, colours and carriage returns, and keeps the text", () => {
    expect(
      stripAnsi(
        `${OVMF_START}BdsDxe: loading Boot0002\r\n\x1b[1m\x1b[33m\x1b[40mShell> \x1b[0m\x1b[37m\x1b[40m`,
      ),
    ).toBe("BdsDxe: loading Boot0002\nShell> ");
  });

  it("removes title sequences and charset switches", () => {
    expect(stripAnsi("\x1b]0;title\x07a\x1b(Bb\x1b7c\tz")).toBe("abc\tz");
  });

  it("holds back an escape sequence cut off at the end of a chunk", () => {
    expect(splitUnfinishedEscape("text\x1b[01;0")).toEqual(["text", "\x1b[01;0"]);
    expect(splitUnfinishedEscape("text\x1b")).toEqual(["text", "\x1b"]);
    expect(splitUnfinishedEscape("text\x1b[0m")).toEqual(["text\x1b[0m", ""]);
  });
});

describe("findPanic", () => {
  it.each([
    ["[    2.1] Kernel panic - not syncing: VFS: Unable to mount root fs", "Kernel panic"],
    ["[    3.0] Oops: 0002 [#1] PREEMPT SMP NOPTI", "Oops:"],
    ["[    4.2] BUG: kernel NULL pointer dereference, address: 0000000000000000", "BUG:"],
    ["liken 1.0.0 slot a up", undefined],
  ])("%s", (line, marker) => {
    expect(findPanic(line)).toBe(marker);
  });
});

describe("ConsoleText.waitFor", () => {
  it("finds a line split over chunks and escape sequences, and returns it whole", async () => {
    const c = new ConsoleText();
    const waiting = c.waitFor(/slot a up$/, 1000);
    c.push(`${OVMF_START}[  1.0] booting\r\nliken 1.0`);
    c.push(".0 slot \x1b[");
    c.push("0ma up\r\nnext");
    expect(await waiting).toBe("liken 1.0.0 slot a up");
    expect(c.text).toBe("[  1.0] booting\nliken 1.0.0 slot a up\nnext");
    expect(c.raw).toContain("\x1b[0m");
  });

  it("moves past each match: the same words printed twice are two matches", async () => {
    const c = new ConsoleText();
    c.push("Shell> \r\nShell> echo x\r\nx\r\n");
    expect(await c.waitFor("Shell>", 100)).toBe("Shell> ");
    expect(await c.waitFor("Shell>", 100)).toBe("Shell> echo x");
    await expect(c.waitFor("Shell>", 50)).rejects.toThrow(/^no "Shell>" on the console/);
  });

  it("waits a moment for the line being printed to end, and takes a prompt that does not", async () => {
    const c = new ConsoleText();
    const whole = c.waitFor("BdsDxe:", 1000);
    c.push("BdsDxe: loadi");
    setTimeout(() => c.push('ng Boot0002 "EFI Internal Shell"\r\n'), PARTIAL_LINE_GRACE_MS / 4);
    expect(await whole).toBe('BdsDxe: loading Boot0002 "EFI Internal Shell"');

    const prompt = c.waitFor(/^Shell> $/, 1000);
    c.push("Shell> ");
    expect(await prompt).toBe("Shell> ");
  });

  it("gives up after the timeout with the last 40 lines of the console", async () => {
    const c = new ConsoleText();
    c.push(Array.from({ length: 50 }, (_, i) => `line ${i + 1}\r\n`).join(""));
    const error = (await c
      .waitFor("liken 1.0.0 slot a up", 50)
      .catch((e) => e)) as ConsoleWaitError;
    expect(error.kind).toBe("timeout");
    const lines = Array.from({ length: 40 }, (_, i) => `line ${i + 11}`).join("\n");
    expect(error.message).toBe(
      `no "liken 1.0.0 slot a up" on the console within 0.05 s\n--- the console's last lines ---\n${lines}`,
    );
  });

  it("fails at once when the kernel crashes, naming the crash line", async () => {
    const c = new ConsoleText();
    const waiting = c.waitFor("liken 1.0.0 slot a up", 60_000).catch((e) => e);
    const started = Date.now();
    c.push(
      "[ 2.0] Run /init as init process\r\n[ 2.1] Kernel panic - not syncing: Attempted to kill init!\r\n",
    );
    const error = (await waiting) as ConsoleWaitError;
    expect(Date.now() - started).toBeLessThan(1000);
    expect(error.kind).toBe("panic");
    expect(error.message).toMatch(
      /^the kernel crashed while waiting for "liken 1\.0\.0 slot a up": \[ 2\.1\] Kernel panic - not syncing: Attempted to kill init!\n--- the console's last lines ---\n\[ 2\.0\] Run \/init/,
    );
    // ... and every later wait fails too: the crash is on the console for good.
    await expect(c.waitFor("anything", 60_000)).rejects.toThrow(/^the kernel crashed/);
  });

  it("finds a line printed before a crash, and ignores crashes a test expects", async () => {
    const before = new ConsoleText();
    before.push("liken 1.0.0 slot a up\r\n[ 9.0] BUG: unable to handle page fault\r\n");
    expect(await before.waitFor("slot a up", 100)).toBe("liken 1.0.0 slot a up");

    const expected = new ConsoleText({ expectPanic: true });
    expected.push("[ 2.1] Kernel panic - not syncing: sysrq triggered crash\r\n");
    expect(await expected.waitFor(/Kernel panic - not syncing: (.*)$/, 100)).toMatch(/sysrq/);
    expect(expected.panic).toBe("[ 2.1] Kernel panic - not syncing: sysrq triggered crash");
  });

  it("fails open and later waits once the console has ended", async () => {
    const c = new ConsoleText();
    const waiting = c.waitFor("never", 60_000).catch((e) => e);
    c.end("the VM stopped: QEMU exited with code 0 (guest-shutdown)");
    expect(((await waiting) as ConsoleWaitError).kind).toBe("ended");
    await expect(c.waitFor("never", 60_000)).rejects.toThrow(
      /^the VM stopped: QEMU exited with code 0 \(guest-shutdown\)\n/,
    );
  });
});
