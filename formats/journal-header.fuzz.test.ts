// The crash journal's header is the first thing the boot agent and `inspect` read of the
// journal partition, whatever it holds: any bytes, a damaged header, or one whose checksum
// holds around sizes liken never writes (journal-io.fuzz.test.ts reads on from those).
import { crc32 } from "node:zlib";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { fuzzParameters, mutated, readsWithin } from "../test/fuzz.ts";
import { decodeJournalHeader, JOURNAL_HEADER_SIZE, journalHeader } from "./journal-header.ts";

const ID = "732ba6d2-aadd-488a-ba2e-165751dff406";
const original = journalHeader(ID, 64 << 20);

const sealed = fc
  .uint8Array({ minLength: JOURNAL_HEADER_SIZE, maxLength: JOURNAL_HEADER_SIZE })
  .map((raw) => {
    const b = Buffer.from(raw);
    b.write("LIKENJNL", 0, "ascii");
    b.writeUInt32LE(1, 8);
    b.writeUInt32LE(crc32(b.subarray(0, JOURNAL_HEADER_SIZE - 4)), JOURNAL_HEADER_SIZE - 4);
    return b;
  });

function expectHeaderOf(bytes: Uint8Array): void {
  const header = readsWithin(decodeJournalHeader, bytes);
  if (header instanceof Error) throw header;
  if (!header) return;
  expect(header.installId).toMatch(
    /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/,
  );
  expect(Number.isInteger(header.recordsOffset) && header.recordsOffset >= 0).toBe(true);
  expect(header.partitionSize).toBeGreaterThanOrEqual(0);
}

describe("the crash journal's header, fuzzed", () => {
  it("reads any bytes as a header or nothing", () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: JOURNAL_HEADER_SIZE + 512 }), expectHeaderOf),
      fuzzParameters(),
    );
  });

  it("reads a damaged header as nothing", () => {
    fc.assert(
      fc.property(mutated(original), (bytes) => {
        expectHeaderOf(bytes);
        // A "change" may write the byte that was there; CRC-32 misses a real one once in 2^32.
        if (!bytes.equals(original)) expect(decodeJournalHeader(bytes)).toBeUndefined();
      }),
      fuzzParameters(),
    );
  });

  it("reads a header whose checksum holds, whatever its sizes say", () => {
    fc.assert(fc.property(sealed, expectHeaderOf), fuzzParameters(100));
  });
});
