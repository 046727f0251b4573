import { describe, expect, it } from "vitest";
import { decodeJournalHeader, JOURNAL_HEADER_SIZE, journalHeader } from "./journal-header.ts";

const ID = "732ba6d2-aadd-488a-ba2e-165751dff406";

describe("decodeJournalHeader", () => {
  it("reads back what the installer writes", () => {
    expect(decodeJournalHeader(journalHeader(ID, 64 * 1024 * 1024))).toEqual({
      installId: ID,
      recordsOffset: JOURNAL_HEADER_SIZE,
      partitionSize: 64 * 1024 * 1024,
    });
  });

  it("refuses a header with any byte changed", () => {
    for (const at of [0, 8, 16, 40, 2000, JOURNAL_HEADER_SIZE - 1]) {
      const b = journalHeader(ID, 1 << 26);
      b[at] = (b[at] ?? 0) ^ 0x01;
      expect(decodeJournalHeader(b), `byte ${at}`).toBeUndefined();
    }
  });

  it("refuses zeros and short reads", () => {
    expect(decodeJournalHeader(Buffer.alloc(JOURNAL_HEADER_SIZE))).toBeUndefined();
    expect(decodeJournalHeader(journalHeader(ID, 1 << 26).subarray(0, 100))).toBeUndefined();
  });
});
