// The file names in loader/entries are whatever the ESP holds (systemd-boot renames them,
// a person may too): each reads as a liken entry or not one, in time linear in its length.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { isVersion } from "../common/names.ts";
import { fuzzParameters } from "../test/fuzz.ts";
import { fewRunParameters, mutatedText } from "../test/fuzz-text.ts";
import { entryState, parseEntryName } from "./entry-name.ts";

function expectEntry(fileName: string): void {
  const name = parseEntryName(fileName);
  if (!name) return;
  expect(["a", "b"]).toContain(name.slot);
  expect(isVersion(name.version)).toBe(true);
  expect(["blessed", "trial", "exhausted"]).toContain(entryState(name));
}

describe("boot entry names, fuzzed", () => {
  it("reads any name as a liken entry or not one", () => {
    fc.assert(fc.property(fc.string({ maxLength: 80 }), expectEntry), fuzzParameters());
  });

  it("reads a damaged name as a liken entry or not one", () => {
    fc.assert(fc.property(mutatedText("liken-b-2.0.0+2-1.conf"), expectEntry), fuzzParameters());
  });

  it("reads a long run of counters at once", () => {
    fc.assert(
      fc.property(
        fc.constantFrom("+1", "+1-", "-1", "+"),
        fc.integer({ min: 100, max: 4000 }),
        (unit, n) => {
          const started = performance.now();
          expectEntry(`liken-a-1.0.0${unit.repeat(n)}.conf`);
          // Backtracking would take seconds; the bound is loose for a loaded machine's pauses.
          expect(performance.now() - started).toBeLessThan(1_000);
        },
      ),
      fewRunParameters(20, 200),
    );
  });
});
