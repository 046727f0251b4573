// The files pstore shows after a crash are the firmware's variables, in any state a reset
// left them: every set of files reads as crash records the journal can hold and read back.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  encodeRecord,
  MAX_PAYLOAD,
  RECORD_HEADER,
  scanRecords,
} from "../formats/journal-records.ts";
import { fuzzParameters } from "../test/fuzz.ts";
import { fewRunParameters, mutatedText } from "../test/fuzz-text.ts";
import { crashesFromPstore, type PstoreFile } from "./crash-parse.ts";

const dump = [
  "Panic#2 Part1",
  "<6>[    0.5] liken: boot 0f4c8f3e-9a51-4a8e-b2a4-6f0d1c2e3b4a release 2.0.0 slot b trial",
  "<4>[   31.1] sysrq: Trigger a crash",
  "<0>[   31.2] Kernel panic - not syncing: sysrq triggered crash",
  "",
].join("\n");

const file: fc.Arbitrary<PstoreFile> = fc.record({
  name: fc.oneof(
    fc.constantFrom("dmesg-efi-1", "dmesg-efi-2", "console-ramoops-0"),
    fc.string({ maxLength: 12 }),
  ),
  text: fc.oneof(
    mutatedText(dump),
    fc.string({ maxLength: 200, unit: "binary" }),
    fc
      .tuple(
        fc.constantFrom("Panic", "Oops", "x"),
        fc.nat(),
        fc.nat(),
        fc.string({ maxLength: 80 }),
      )
      .map(([kind, count, part, body]) => `${kind}#${count} Part${part}\n${body}`),
  ),
  mtimeMs: fc.integer({ min: 0, max: 4_102_444_800_000 }),
});

describe("pstore's files, fuzzed", () => {
  it("read as crash records the journal holds and reads back", () => {
    fc.assert(
      fc.property(fc.array(file, { maxLength: 6 }), (files) => {
        for (const crash of crashesFromPstore(files)) {
          const record = encodeRecord(1, crash);
          if (record.readUInt32LE(16) > MAX_PAYLOAD) continue;
          expect(scanRecords(record).records[0]?.crash).toEqual(crash);
          expect(record.length).toBeGreaterThan(RECORD_HEADER);
        }
      }),
      fuzzParameters(),
    );
  });

  it("read a dump of many long lines as a record the journal can hold", () => {
    fc.assert(
      fc.property(fc.nat(200), fc.constantFrom("\u0001", "a", "\u2028", '"'), (lines, c) => {
        const body = Array.from({ length: lines }, () => c.repeat(4096)).join("\n");
        const [crash] = crashesFromPstore([
          { name: "dmesg-efi-1", text: `Panic#1 Part1\n${body}`, mtimeMs: 0 },
        ]);
        if (!crash) return;
        expect(encodeRecord(1, crash).readUInt32LE(16)).toBeLessThanOrEqual(MAX_PAYLOAD);
      }),
      fewRunParameters(20, 200),
    );
  });
});
