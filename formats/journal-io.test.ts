// The crash journal through a real file handle, on a temporary file that holds the header
// the installer writes: what the agent appends at boot, and what a reader sees afterwards.
import { type FileHandle, mkdtemp, open, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { sampleCrash } from "../test/fixtures/crash.ts";
import { JOURNAL_HEADER_SIZE, journalHeader } from "./journal-header.ts";
import { appendCrashes, readJournal } from "./journal-io.ts";
import { encodeRecord, RECORD_ALIGN } from "./journal-records.ts";

const INSTALL_ID = "732ba6d2-aadd-488a-ba2e-165751dff406";
const OTHER_INSTALL_ID = "1c0ffee0-1234-4abc-8def-0123456789ab";
const SIZE = 1024 * 1024;

let dir: string;
let handle: FileHandle;

async function journalFile(installId = INSTALL_ID, size = SIZE): Promise<FileHandle> {
  const file = await open(join(dir, `journal-${Math.random()}.img`), "w+");
  await file.truncate(size);
  await file.write(journalHeader(installId, size), 0, JOURNAL_HEADER_SIZE, 0);
  return file;
}

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), "liken-journal-io-"));
  handle = await journalFile();
});

afterEach(async () => {
  await handle.close();
  await rm(dir, { recursive: true, force: true });
});

describe("readJournal", () => {
  it("reads the installer's header and an empty journal", async () => {
    const journal = await readJournal(handle, 0, SIZE);
    expect(journal).toEqual({
      header: { installId: INSTALL_ID, recordsOffset: JOURNAL_HEADER_SIZE, partitionSize: SIZE },
      scan: { records: [], skipped: 0 },
      areaSize: SIZE - JOURNAL_HEADER_SIZE,
    });
  });

  it("is undefined when the header does not verify: zeros, or one byte changed", async () => {
    const zeros = await open(join(dir, "zeros.img"), "w+");
    try {
      await zeros.truncate(SIZE);
      expect(await readJournal(zeros, 0, SIZE)).toBeUndefined();
    } finally {
      await zeros.close();
    }
    await handle.write(Buffer.from([0xff]), 0, 1, 20);
    expect(await readJournal(handle, 0, SIZE)).toBeUndefined();
  });

  it("reads a journal at an offset of a larger file, as inspect reads a whole disk", async () => {
    const disk = await open(join(dir, "disk.img"), "w+");
    try {
      const start = 3 * 1024 * 1024;
      await disk.truncate(start + SIZE);
      await disk.write(journalHeader(INSTALL_ID, SIZE), 0, JOURNAL_HEADER_SIZE, start);
      const record = encodeRecord(1, sampleCrash(1));
      await disk.write(record, 0, record.length, start + JOURNAL_HEADER_SIZE);
      const journal = await readJournal(disk, start, SIZE);
      expect(journal?.scan.records.map((r) => r.crash)).toEqual([sampleCrash(1)]);
    } finally {
      await disk.close();
    }
  });

  it("reads records that fill more than a MiB, and none past a MiB without a record", async () => {
    const size = 8 * 1024 * 1024;
    const big = await journalFile(INSTALL_ID, size);
    try {
      // Crashes of about 200 KiB each: eleven of them run past the second MiB.
      const crashes = Array.from({ length: 11 }, (_, i) => ({
        ...sampleCrash(i + 1),
        lines: Array.from({ length: 2000 }, (_, n) => `[ ${n}.000000] ${"x".repeat(90)}`),
      }));
      let journal = await readJournal(big, 0, size);
      if (!journal) throw new Error("no journal");
      journal = await appendCrashes(big, journal, crashes);
      const newest = journal.scan.records[0];
      expect(newest && newest.offset + newest.span).toBeGreaterThan(2 * 1024 * 1024);
      // A record an earlier install left behind a MiB of zeros: appends never leave such a
      // gap, so it is not this journal's.
      const stray = encodeRecord(99, sampleCrash(99));
      await big.write(stray, 0, stray.length, JOURNAL_HEADER_SIZE + 6 * 1024 * 1024);
      const again = await readJournal(big, 0, size);
      expect(again?.scan.records.map((r) => r.crash.id)).toEqual(
        crashes.map((c) => c.id).reverse(),
      );
    } finally {
      await big.close();
    }
  });

  it("reads a header of another install too: the caller decides whose records they are", async () => {
    const other = await journalFile(OTHER_INSTALL_ID);
    try {
      const journal = await readJournal(other, 0, SIZE);
      expect(journal?.header.installId).toBe(OTHER_INSTALL_ID);
      expect(journal?.scan).toEqual({ records: [], skipped: 0 });
    } finally {
      await other.close();
    }
  });
});

describe("appendCrashes", () => {
  it("appends new crashes in the order given; a reader sees them newest first", async () => {
    const before = await readJournal(handle, 0, SIZE);
    if (!before) throw new Error("no journal");
    const after = await appendCrashes(handle, before, [sampleCrash(1), sampleCrash(2)]);
    expect(after.scan.records.map((r) => [r.seq, r.crash.id])).toEqual([
      [2, sampleCrash(2).id],
      [1, sampleCrash(1).id],
    ]);
    expect(await readJournal(handle, 0, SIZE)).toEqual(after);
  });

  it("never appends the same crash twice (by id), across boots and within one call", async () => {
    let journal = await readJournal(handle, 0, SIZE);
    if (!journal) throw new Error("no journal");
    journal = await appendCrashes(handle, journal, [sampleCrash(1)]);
    journal = await appendCrashes(handle, journal, [
      sampleCrash(1),
      sampleCrash(2),
      sampleCrash(2),
    ]);
    const again = await readJournal(handle, 0, SIZE);
    expect(again?.scan.records.map((r) => r.crash.id)).toEqual([
      sampleCrash(2).id,
      sampleCrash(1).id,
    ]);
    expect(again?.scan.skipped).toBe(0);
  });

  it("survives a torn record: skips it, appends in its place, and keeps the records before it", async () => {
    let journal = await readJournal(handle, 0, SIZE);
    if (!journal) throw new Error("no journal");
    journal = await appendCrashes(handle, journal, [sampleCrash(1)]);
    // A power loss while record 2 was written: its first sector reached the disk, cut short.
    const torn = encodeRecord(2, sampleCrash(2)).subarray(0, 100);
    const at = JOURNAL_HEADER_SIZE + (journal.scan.records[0]?.span ?? RECORD_ALIGN);
    await handle.write(torn, 0, torn.length, at);
    journal = await readJournal(handle, 0, SIZE);
    expect(journal?.scan.records.map((r) => r.crash.id)).toEqual([sampleCrash(1).id]);
    expect(journal?.scan.skipped).toBe(1);
    if (!journal) throw new Error("no journal");
    // At the next boot the same crash is still in pstore: it is appended again, over the torn one.
    const after = await appendCrashes(handle, journal, [sampleCrash(2)]);
    expect(after.scan.records.map((r) => [r.seq, r.offset, r.crash.id])).toEqual([
      [2, at - JOURNAL_HEADER_SIZE, sampleCrash(2).id],
      [1, 0, sampleCrash(1).id],
    ]);
    expect(after.scan.skipped).toBe(0);
  });

  it("wraps in a small partition and keeps the newest crashes", async () => {
    const small = await journalFile(INSTALL_ID, JOURNAL_HEADER_SIZE + 4 * RECORD_ALIGN);
    try {
      let journal = await readJournal(small, 0, JOURNAL_HEADER_SIZE + 4 * RECORD_ALIGN);
      if (!journal) throw new Error("no journal");
      for (let n = 1; n <= 9; n++) journal = await appendCrashes(small, journal, [sampleCrash(n)]);
      expect(journal.scan.records.map((r) => r.crash.id)).toEqual(
        [9, 8, 7, 6].map((n) => sampleCrash(n).id),
      );
      expect(journal.scan.skipped).toBe(0);
    } finally {
      await small.close();
    }
  });
});
