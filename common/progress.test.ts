// What a person waiting on a build sees: in a log, one line per step and a line every few
// seconds of a long download; on a terminal, one line drawn again with a bar that fits.
import { describe, expect, it } from "vitest";
import {
  barLine,
  createProgress,
  formatAmount,
  formatBar,
  NO_PROGRESS,
  numberedSteps,
} from "./progress.ts";
import { MIB } from "./size.ts";

/** A reporter writing into a string, on a clock the test moves. */
function recorder(columns?: number) {
  let text = "";
  let clock = 1_000_000;
  const progress = createProgress("liken-stick release", {
    write: (t) => {
      text += t;
    },
    ...(columns === undefined ? {} : { columns }),
    now: () => clock,
  });
  return {
    progress,
    after: (ms: number) => {
      clock += ms;
    },
    text: () => text,
  };
}

describe("the amounts", () => {
  it("say bytes in binary units and items as counts", () => {
    expect(formatAmount(40 * MIB, 139.2 * MIB, "bytes")).toBe("40 MiB of 139 MiB");
    expect(formatAmount(0, 99.9 * MIB, "bytes")).toBe("0 B of 99.9 MiB");
    expect(formatAmount(12, 43, "items")).toBe("12 of 43");
  });

  it("fill the bar by the share done, never past its ends", () => {
    expect(formatBar(0, 100)).toBe("[----------]");
    expect(formatBar(40, 100)).toBe("[####------]");
    expect(formatBar(100, 100)).toBe("[##########]");
    expect(formatBar(150, 100)).toBe("[##########]");
    expect(formatBar(0, 0)).toBe("[----------]");
  });
});

describe("in a log", () => {
  it("writes one line per step, numbered, and a download's amount every five seconds", () => {
    const r = recorder();
    const step = numberedSteps(r.progress, 5);
    step("the pinned inputs: Debian packages and Node.js");
    r.progress.step("downloading 43 Debian packages, 99.9 MiB");
    r.progress.amount(10 * MIB, 99.9 * MIB, "bytes"); // too soon for a line
    r.after(5_000);
    r.progress.amount(40 * MIB, 99.9 * MIB, "bytes");
    r.after(1_000);
    r.progress.amount(60 * MIB, 99.9 * MIB, "bytes");
    r.after(5_000);
    r.progress.amount(99.9 * MIB, 99.9 * MIB, "bytes"); // done: the next step says so
    step("building the initramfs");
    r.progress.end();
    expect(r.text()).toBe(
      [
        "liken-stick release: [1/5] the pinned inputs: Debian packages and Node.js",
        "liken-stick release: downloading 43 Debian packages, 99.9 MiB",
        "liken-stick release: downloading 43 Debian packages, 99.9 MiB: 40 MiB of 99.9 MiB done",
        "liken-stick release: [2/5] building the initramfs",
        "",
      ].join("\n"),
    );
  });

  it("counts unpacked packages as items", () => {
    const r = recorder();
    r.progress.step("unpacking 43 Debian packages");
    r.after(6_000);
    r.progress.amount(12, 43, "items");
    expect(r.text()).toContain(
      "liken-stick release: unpacking 43 Debian packages: 12 of 43 done\n",
    );
  });
});

describe("on a terminal", () => {
  it("draws the step's line again in place with a bar, and leaves each finished step whole", () => {
    const r = recorder(100);
    r.progress.step("downloading 43 Debian packages, 99.9 MiB");
    r.after(200);
    r.progress.amount(40 * MIB, 99.9 * MIB, "bytes");
    r.after(50);
    r.progress.amount(41 * MIB, 99.9 * MIB, "bytes"); // within 100 ms: not drawn
    r.progress.step("unpacking 43 Debian packages", { index: 1, count: 5 });
    r.progress.end();
    expect(r.text()).toBe(
      [
        "\r\x1b[Kliken-stick release: downloading 43 Debian packages, 99.9 MiB",
        "\r\x1b[Kliken-stick release: downloading 43 Debian packages, 99.9 MiB [####------] 40 MiB of 99.9 MiB",
        "\r\x1b[Kliken-stick release: downloading 43 Debian packages, 99.9 MiB\n",
        "\r\x1b[Kliken-stick release: [1/5] unpacking 43 Debian packages",
        "\r\x1b[Kliken-stick release: [1/5] unpacking 43 Debian packages\n",
      ].join(""),
    );
  });

  it("fits the live line to the terminal: the label goes first, then the end of the step's words, never the amount", () => {
    const amount = { done: 40 * MIB, total: 99.9 * MIB, unit: "bytes" as const };
    const body = "downloading 43 Debian packages, 99.9 MiB";
    expect(barLine("liken-stick release", body, amount, 80)).toBe(
      "downloading 43 Debian packages, 99.9 MiB [####------] 40 MiB of 99.9 MiB",
    );
    const narrow = barLine("liken-stick release", body, amount, 60);
    expect(narrow).toBe("downloading 43 Debian pa... [####------] 40 MiB of 99.9 MiB");
    expect(narrow.length).toBeLessThan(60);
    expect(barLine("npm start", "[2/5] building", undefined, 80)).toBe("npm start: [2/5] building");
  });
});

describe("nobody watching", () => {
  it("costs nothing and says nothing", () => {
    const step = numberedSteps(NO_PROGRESS, 2);
    step("a");
    NO_PROGRESS.amount(1, 2, "items");
    NO_PROGRESS.end();
  });
});
