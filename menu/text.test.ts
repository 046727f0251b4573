import { describe, expect, it } from "vitest";
import { cut, percent, printable, progressBar, rate, sentence, utcMinute, wrap } from "./text.ts";

describe("text for the console", () => {
  it("keeps printable ASCII only", () => {
    expect(printable("a\tb\x1b[2J\u00e9\x7f")).toBe("a  b?[2J??");
  });

  it("cuts with a visible mark", () => {
    expect(cut("abcdefgh", 8)).toBe("abcdefgh");
    expect(cut("abcdefghi", 8)).toBe("abcde...");
    expect(cut("abcdef", 2)).toBe("ab");
  });

  it("wraps prose flush and indented lines two further", () => {
    expect(wrap("one two three four", 9)).toEqual(["one two", "three", "four"]);
    expect(wrap("  E liken-esp  A liken-a  B liken-b", 20)).toEqual([
      "  E liken-esp  A",
      "    liken-a  B",
      "    liken-b",
    ]);
    expect(wrap("abcdefghijklmnopqrstuvwxyz", 10)).toEqual(["abcdefghij", "klmnopqrst", "uvwxyz"]);
    for (const line of wrap("x ".repeat(200), 79)) expect(line.length).toBeLessThanOrEqual(79);
  });

  it("draws progress", () => {
    expect(progressBar(1, 4, 8)).toBe("[##------]");
    expect(progressBar(0, 0, 4)).toBe("[####]");
    expect(percent(999, 1000)).toBe("99%");
    expect(percent(1000, 1000)).toBe("100%");
    expect(rate(64 * 1024 * 1024, 2000)).toBe("32 MiB/s");
    expect(rate(1024, 50)).toBe("");
  });

  it("formats dates and sentences", () => {
    expect(utcMinute("2025-03-01T10:20:30.000Z")).toBe("2025-03-01 10:20 UTC");
    expect(sentence("no blank disk")).toBe("No blank disk.");
    expect(sentence("Done.")).toBe("Done.");
  });
});
