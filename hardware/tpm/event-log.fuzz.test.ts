// The TPM event log comes from the firmware and sits in memory anyone with the machine
// could have written: any bytes read as a log or an EventLogError, from their own bytes
// only, and an option-ROM finding follows from whatever log they read as.
import { readFileSync } from "node:fs";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { NO_PCI_NAMES } from "../../formats/pci-ids.ts";
import { fuzzParameters, mutated, readsWithin } from "../../test/fuzz.ts";
import { EventLogError, parseEventLog } from "./event-log.ts";
import { optionRomFinding } from "./option-roms.ts";

const valid = readFileSync(new URL("../fixtures/tpm/virtio-rom.bin", import.meta.url));
const noSysfs = { list: () => [], text: () => null, linkName: () => null };

function expectLog(bytes: Uint8Array): void {
  const log = readsWithin(parseEventLog, bytes, [EventLogError]);
  if (log instanceof Error) {
    expect(log.message).toMatch(/^the TPM event log is damaged at byte \d+: /);
    return;
  }
  let total = 0;
  for (const e of log.events) total += e.data.length + e.digests.length * 2;
  expect(total).toBeLessThanOrEqual(bytes.length);
  expect(["none", "found"]).toContain(optionRomFinding(log, noSysfs, () => NO_PCI_NAMES).kind);
}

// A crypto-agile log's start (the Spec ID event) and then records whose counts and sizes
// say anything: the digest count and the event size are where a reader goes wrong.
const specIdEnd = 32 + valid.readUInt32LE(28);
const records = fc
  .array(
    fc.tuple(
      fc.constantFrom(0, 2, 7),
      fc.constantFrom(0x80000004, 0x3, 0x4),
      fc.nat(6),
      fc.constantFrom(0x4, 0xb, 0x99),
      fc.nat(200),
      fc.uint8Array({ maxLength: 120 }),
    ),
    { maxLength: 5 },
  )
  .map((list) =>
    Buffer.concat([
      valid.subarray(0, specIdEnd),
      ...list.map(([pcr, type, count, alg, size, body]) => {
        const head = Buffer.alloc(14);
        head.writeUInt32LE(pcr, 0);
        head.writeUInt32LE(type, 4);
        head.writeUInt32LE(count, 8);
        head.writeUInt16LE(alg, 12);
        const sized = Buffer.alloc(4);
        sized.writeUInt32LE(size, 0);
        return Buffer.concat([head, Buffer.from(body.subarray(0, 20)), sized, body]);
      }),
    ]),
  );

describe("TPM event logs, fuzzed", () => {
  it("reads any bytes as a log or an EventLogError", () => {
    fc.assert(fc.property(fc.uint8Array({ maxLength: 400 }), expectLog), fuzzParameters());
  });

  it("reads a damaged real log as a log or an EventLogError", () => {
    fc.assert(fc.property(mutated(valid, 12), expectLog), fuzzParameters(100));
  });

  it("reads a real log cut anywhere as a log or an EventLogError", () => {
    fc.assert(
      fc.property(fc.nat(valid.length), (end) => expectLog(valid.subarray(0, end))),
      fuzzParameters(),
    );
  });

  it("reads records whose digest counts and sizes say anything", () => {
    fc.assert(fc.property(records, expectLog), fuzzParameters());
  });
});
