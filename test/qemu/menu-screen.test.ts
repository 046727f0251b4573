// The terminal emulator the menu's QEMU tests read the serial console with: what a VT220
// of 80x24 would show for the sequences the menu and the kernel send. No VM here.
import { expect, it } from "vitest";
import { VtScreen } from "./menu-screen.ts";

const screenOf = (data: string, size = { cols: 20, rows: 4 }) => {
  const s = new VtScreen(size);
  s.write(data);
  return s;
};

it("places text at the cursor and erases to the end of the line", () => {
  const s = screenOf("hello world\x1b[1;7Hthere\x1b[K\x1b[3;2Hx");
  expect(s.lines()).toEqual(["hello there", "", " x", ""]);
});

it("wraps only when a character follows the last column, and scrolls at the bottom", () => {
  const s = screenOf(`${"a".repeat(20)}\r\nb\r\nc\r\nd\r\ne`);
  expect(s.lines()).toEqual(["b", "c", "d", "e"]);
  const t = screenOf(`${"a".repeat(20)}\x1b[2;1Hb`);
  expect(t.lines()).toEqual(["a".repeat(20), "b", "", ""]);
  const u = screenOf(`${"a".repeat(21)}`);
  expect(u.lines()).toEqual(["a".repeat(20), "a", "", ""]);
});

it("answers the size question at the far corner, as the menu asks it", () => {
  const s = screenOf("top\x1b7\x1b[999;999H\x1b[6n\x1b8!", { cols: 80, rows: 24 });
  expect(s.takeReplies()).toEqual(["\x1b[24;80R"]);
  expect(s.takeReplies()).toEqual([]);
  expect(s.lines()[0]).toBe("top!");
});

it("clears on ESC [ 2 J and on the alternate screen, and ignores attributes", () => {
  const s = screenOf("old\x1b[?1049h\x1b[H\x1b[7mnew\x1b[0m");
  expect(s.lines()).toEqual(["new", "", "", ""]);
  expect(screenOf("x\r\ny\x1b[2J").lines()).toEqual(["", "", "", ""]);
});
