// boot-modules.json comes with a release (from a stick or an update medium), and its alias
// patterns are matched against every device's modalias: the reader must refuse any entry
// of the wrong shape, and a pattern must cost no more than its length times the text's.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { fuzzParameters } from "../test/fuzz.ts";
import { itReadsAnyText } from "../test/fuzz-text.ts";
import {
  type BootModules,
  initramfsModules,
  matchesPattern,
  parseBootModules,
  resolveModalias,
  rootModules,
} from "./boot-modules.ts";

const valid = JSON.stringify(
  {
    kernel: "6.1.0-28-amd64",
    modules: [
      { name: "nvme", path: "kernel/drivers/nvme/host/nvme.ko", depends: ["nvme_core"] },
      { name: "nvme_core", path: "kernel/drivers/nvme/host/nvme-core.ko", depends: [] },
      {
        name: "tg3",
        path: "kernel/drivers/net/ethernet/broadcom/tg3.ko",
        depends: [],
        where: "root",
        firmware: [{ file: "tigon/tg3_tso5.bin", carried: true }],
      },
    ],
    builtin: ["ext4"],
    aliases: [
      ["pci:v*d*sv*sd*bc01sc08i02*", "nvme"],
      ["pci:v000014E4d00001644sv*sd*bc*sc*i*", "tg3"],
    ],
  },
  null,
  2,
);

// What the installer, the report and the agent do with the value: every field, as typed.
function expectBootModules(text: string): void {
  const modules: BootModules | string = parseBootModules(text, "6.1.0-28-amd64");
  if (typeof modules === "string") return;
  expect(typeof modules.kernel).toBe("string");
  initramfsModules(modules).map((m) => [m.name, m.path, ...m.depends].join(" "));
  rootModules(modules).flatMap((m) => (m.firmware ?? []).map((f) => `${f.file} ${f.carried}`));
  for (const b of modules.builtin) expect(typeof b).toBe("string");
  resolveModalias("pci:v0000144Dd0000A808sv0000144Dsd0000A801bc01sc08i02", modules.aliases);
}

// The reference: fnmatch as a RegExp (what the reader used to do: right, but exponential
// in the number of `*` on a text it does not match).
function fnmatchRegExp(pattern: string): RegExp | undefined {
  let source = "";
  const quote = (c: string) => c.replace(/[.*+?^${}()|[\]\\/]/g, "\\$&");
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i] as string;
    if (c === "\\" && i + 1 < pattern.length) source += quote(pattern[++i] as string);
    else if (c === "*") source += "[\\s\\S]*";
    else if (c === "?") source += "[\\s\\S]";
    else if (c === "[") {
      let j = i + 1;
      if (pattern[j] === "!" || pattern[j] === "^") j++;
      if (pattern[j] === "]") j++;
      while (j < pattern.length && pattern[j] !== "]") j++;
      if (j >= pattern.length) {
        source += "\\[";
        continue;
      }
      let body = pattern.slice(i + 1, j);
      const negate = body.startsWith("!") || body.startsWith("^");
      if (negate) body = body.slice(1);
      source += `[${negate ? "^" : ""}${body.replace(/[\\\]^[]/g, "\\$&")}]`;
      i = j;
    } else source += quote(c);
  }
  try {
    return new RegExp(`^${source}$`);
  } catch {
    return undefined; // a range out of order: the RegExp refuses what fnmatch matches nothing with
  }
}

const patternChar = fc.constantFrom("a", "b", "-", "*", "?", "[", "]", "!", "^", "\\", "0", "9");
const textChar = fc.constantFrom("a", "b", "-", "]", "[", "0", "5", "9", "*", "\\");

describe("boot-modules.json's reader, fuzzed", () => {
  it("reads the document the release build writes", () => {
    expect(typeof parseBootModules(valid, "k")).toBe("object");
  });

  itReadsAnyText(valid, "json", expectBootModules);
});

describe("fnmatch on untrusted patterns, fuzzed", () => {
  it("matches as the RegExp does, where the RegExp has an answer", () => {
    fc.assert(
      fc.property(
        fc.array(patternChar, { maxLength: 10 }).map((c) => c.join("")),
        fc.array(textChar, { maxLength: 12 }).map((c) => c.join("")),
        (pattern, text) => {
          const re = fnmatchRegExp(pattern);
          if (re) expect(matchesPattern(pattern, text)).toBe(re.test(text));
          else matchesPattern(pattern, text);
        },
      ),
      fuzzParameters(1000),
    );
  });

  it("answers any pattern against a long modalias at once", () => {
    const modalias = `pci:v${"0".repeat(200)}`;
    fc.assert(
      fc.property(
        fc.array(fc.constantFrom("*", "0", "?", "[0-9]", "a"), { maxLength: 40 }),
        (parts) => {
          const started = performance.now();
          matchesPattern(`${parts.join("")}b`, modalias);
          // Backtracking would take seconds; the bound is loose for a loaded machine's pauses.
          expect(performance.now() - started).toBeLessThan(1_000);
        },
      ),
      fuzzParameters(),
    );
  });
});
