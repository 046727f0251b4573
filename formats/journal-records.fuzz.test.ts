// The crash journal's records area is read at every boot and by `inspect`: any bytes may be
// there (a torn append, another install's records, a disk that was never liken's), and what
// decodes from them reaches the boot plan and the status document.
import { crc32 } from "node:zlib";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { sampleCrash } from "../test/fixtures/crash.ts";
import { fuzzParameters, mutated, readsWithin } from "../test/fuzz.ts";
import {
  appendOffset,
  type CrashRecord,
  encodeRecord,
  RECORD_ALIGN,
  RECORD_HEADER,
  scanRecords,
} from "./journal-records.ts";

const MAGIC = Buffer.from("LIKENCR1", "ascii");

// A record whose checksum holds around any payload and sequence number: random bytes never
// pass the CRC, so without these the checks behind it would never run.
function sealedRecord(seq: bigint, payload: Buffer): Buffer {
  const b = Buffer.alloc(Math.ceil((RECORD_HEADER + payload.length) / RECORD_ALIGN) * RECORD_ALIGN);
  MAGIC.copy(b, 0);
  b.writeBigUInt64LE(seq, 8);
  b.writeUInt32LE(payload.length, 16);
  payload.copy(b, RECORD_HEADER);
  b.writeUInt32LE(crc32(payload, crc32(b.subarray(8, 20))), 20);
  return b;
}

// Payloads a crash record's reader must judge: records with fields of the wrong type or
// missing, and JSON that is no record at all.
const crashLike = fc.record(
  {
    id: fc.oneof(fc.string(), fc.integer()),
    time: fc.oneof(fc.string(), fc.constant(null)),
    bootId: fc.oneof(fc.string(), fc.constant(null)),
    release: fc.oneof(fc.string(), fc.constant(null), fc.integer()),
    slot: fc.oneof(fc.constantFrom("a", "b", "c"), fc.constant(null), fc.integer()),
    kind: fc.oneof(fc.string(), fc.integer(), fc.constant(null)),
    lines: fc.oneof(fc.array(fc.string()), fc.array(fc.jsonValue(), { maxLength: 4 })),
  },
  { requiredKeys: [] },
);
const wellFormed = fc.record({
  id: fc.string(),
  time: fc.string(),
  bootId: fc.string(),
  release: fc.option(fc.string()),
  slot: fc.constantFrom("a", "b", null),
  kind: fc.string(),
  lines: fc.array(fc.string(), { maxLength: 4 }),
});
const payload = fc.oneof(
  wellFormed.map((c) => JSON.stringify(c)),
  crashLike.map((c) => JSON.stringify(c)),
  fc.jsonValue({ maxDepth: 3 }).map((v) => JSON.stringify(v)),
  fc.string(),
);
const seq = fc.oneof(
  fc.bigInt({ min: 0n, max: 1000n }),
  fc.bigInt({ min: 0n, max: 2n ** 64n - 1n }),
);

// An area of sealed records at aligned places among garbage and magics off the grid.
const area = fc
  .tuple(
    fc.uint8Array({ minLength: 0, maxLength: 8 * RECORD_ALIGN }),
    fc.array(fc.tuple(fc.nat(7), seq, payload), { maxLength: 4 }),
    fc.array(fc.nat(8 * RECORD_ALIGN), { maxLength: 3 }),
  )
  .map(([noise, records, magics]) => {
    const b = Buffer.from(noise);
    for (const at of magics) if (at + 8 <= b.length) MAGIC.copy(b, at);
    const parts: Buffer[] = [b];
    for (const [block, s, p] of records) {
      const r = sealedRecord(s, Buffer.from(p, "utf8"));
      const at = block * RECORD_ALIGN;
      if (at + r.length <= b.length) r.copy(b, at);
      else parts.push(r);
    }
    return Buffer.concat(parts);
  });

const valid = Buffer.concat([
  encodeRecord(1, sampleCrash(1)),
  encodeRecord(2, sampleCrash(2, 10)),
  encodeRecord(3, sampleCrash(3)),
  Buffer.alloc(2 * RECORD_ALIGN),
]);

// What the boot plan and the status document take from a record: all of it, as its type says.
function expectCrashRecord(crash: CrashRecord): void {
  expect(typeof crash.id).toBe("string");
  expect(typeof crash.time).toBe("string");
  expect(typeof crash.bootId).toBe("string");
  expect(typeof crash.kind).toBe("string");
  expect(crash.release === null || typeof crash.release === "string").toBe(true);
  expect([null, "a", "b"]).toContain(crash.slot);
  for (const line of crash.lines) expect(typeof line).toBe("string");
}

function expectScanOf(bytes: Uint8Array): void {
  const scan = readsWithin(scanRecords, bytes);
  if (scan instanceof Error) throw scan;
  expect(scan.skipped).toBeLessThanOrEqual(bytes.length / RECORD_ALIGN);
  let previous = Number.POSITIVE_INFINITY;
  for (const r of scan.records) {
    expect(r.offset % RECORD_ALIGN).toBe(0);
    expect(r.offset + RECORD_HEADER).toBeLessThanOrEqual(bytes.length);
    expect(Number.isSafeInteger(r.seq)).toBe(true);
    expect(r.seq).toBeLessThanOrEqual(previous);
    previous = r.seq;
    expectCrashRecord(r.crash);
  }
  const bySpace = [...scan.records].sort((x, y) => x.offset - y.offset);
  for (let i = 1; i < bySpace.length; i++) {
    const [before, after] = [bySpace[i - 1], bySpace[i]] as [
      (typeof bySpace)[0],
      (typeof bySpace)[0],
    ];
    expect(before.offset + before.span).toBeLessThanOrEqual(after.offset);
  }
}

describe("the crash journal's records, fuzzed", () => {
  it("reads any bytes as intact records and a count of skipped ones", () => {
    fc.assert(fc.property(area, expectScanOf), fuzzParameters());
  });

  it("reads a damaged area as the records still intact", () => {
    fc.assert(fc.property(mutated(valid, 16), expectScanOf), fuzzParameters());
  });

  it("appends within the area, on the block grid, after whatever it read", () => {
    fc.assert(
      fc.property(
        area,
        fc.integer({ min: 1, max: 300 * 1024 }),
        fc.integer({ min: 0, max: 1 << 20 }),
        fc.constantFrom(512, 4096, 65536),
        (bytes, span, areaSize, block) => {
          const scan = scanRecords(bytes);
          const at = appendOffset(scan, span, areaSize, block);
          expect(at % block === 0 || at === 0).toBe(true);
          if (span <= areaSize) expect(at + span).toBeLessThanOrEqual(areaSize);
          // The next record's number must be one encodeRecord can write.
          const newest = scan.records[0];
          if (newest) encodeRecord(newest.seq + 1, sampleCrash(1));
        },
      ),
      fuzzParameters(),
    );
  });
});
