// The crash journal through a real file handle, on a temporary file of fuzzed bytes: a header
// whose checksum holds may still name any sizes, and `inspect` takes the partition's start
// and size from a GPT, untrusted too. Reading must answer (a journal or undefined), read and
// allocate no more than the file holds, and an append must stay inside the partition.
import { type FileHandle, mkdtemp, open, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { crc32 } from "node:zlib";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { MIB } from "../common/size.ts";
import { sampleCrash } from "../test/fixtures/crash.ts";
import { fuzzParameters } from "../test/fuzz.ts";
import { JOURNAL_HEADER_SIZE, journalHeader } from "./journal-header.ts";
import { appendCrashes, readJournal } from "./journal-io.ts";
import { encodeRecord, RECORD_ALIGN } from "./journal-records.ts";

const INSTALL_ID = "732ba6d2-aadd-488a-ba2e-165751dff406";

let dir: string;
let handle: FileHandle;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "liken-journal-fuzz-"));
  handle = await open(join(dir, "journal.img"), "w+");
});

afterAll(async () => {
  await handle.close();
  await rm(dir, { recursive: true, force: true });
});

// A header whose checksum holds, naming any records offset and partition size.
function sealedHeader(recordsOffset: number, partitionSize: bigint): Buffer {
  const b = journalHeader(INSTALL_ID, 0);
  b.writeUInt32LE(recordsOffset, 12);
  b.writeBigUInt64LE(partitionSize, 32);
  b.writeUInt32LE(crc32(b.subarray(0, JOURNAL_HEADER_SIZE - 4)), JOURNAL_HEADER_SIZE - 4);
  return b;
}

const size = fc.oneof(
  fc.integer({ min: 0, max: 4 * MIB }),
  fc.integer({ min: 0, max: Number.MAX_SAFE_INTEGER }),
);

// A journal file: a header (the installer's, sealed with any sizes, or damaged) at `start`,
// and records, noise and record magics anywhere after it; sparse up to `length`.
const journalFile = fc.record({
  start: fc.constantFrom<number>(0, 512, 4096),
  length: fc.integer({ min: 0, max: 3 * MIB }),
  header: fc.oneof(
    fc.constant(journalHeader(INSTALL_ID, 2 * MIB)),
    fc
      .tuple(
        fc.oneof(fc.constantFrom(0, JOURNAL_HEADER_SIZE, 100, 2 * MIB), fc.nat(2 ** 32 - 1)),
        fc.oneof(
          fc.bigInt({ min: 0n, max: BigInt(4 * MIB) }),
          fc.bigInt({ min: 0n, max: 2n ** 64n - 1n }),
        ),
      )
      .map(([offset, partition]) => sealedHeader(offset, partition)),
    fc.uint8Array({ minLength: JOURNAL_HEADER_SIZE, maxLength: JOURNAL_HEADER_SIZE }),
  ),
  pieces: fc.array(
    fc.tuple(
      fc.integer({ min: 0, max: 3 * MIB }),
      fc.oneof(
        fc.nat(20).map((n) => encodeRecord(n + 1, sampleCrash(n))),
        fc.constant(Buffer.from("LIKENCR1", "ascii")),
        fc.uint8Array({ maxLength: 1024 }).map((b) => Buffer.from(b)),
      ),
    ),
    { maxLength: 6 },
  ),
});

type JournalFile = typeof journalFile extends fc.Arbitrary<infer T> ? T : never;

async function writeFile(file: JournalFile): Promise<void> {
  await handle.truncate(0);
  await handle.truncate(file.length);
  for (const [at, bytes] of [[file.start, file.header] as const, ...file.pieces]) {
    const fits = Math.max(0, Math.min(bytes.length, file.length - at));
    if (fits > 0) await handle.write(bytes, 0, fits, at);
  }
}

describe("the crash journal on a file, fuzzed", () => {
  it("reads any file as a journal or undefined, within the file", async () => {
    await fc.assert(
      fc.asyncProperty(journalFile, size, async (file, partition) => {
        await writeFile(file);
        const reads = vi.spyOn(handle, "read");
        const allocations = vi.spyOn(Buffer, "allocUnsafe");
        try {
          const journal = await readJournal(handle, file.start, partition);
          // Reads stop at the file's end: one for the header, then a MiB at a time.
          expect(reads.mock.calls.length).toBeLessThanOrEqual(2 + Math.ceil(file.length / MIB) + 1);
          const largest = Math.max(0, ...allocations.mock.calls.map(([n]) => n));
          expect(largest).toBeLessThanOrEqual(Math.max(MIB, file.length));
          if (journal) {
            expect(journal.areaSize).toBeLessThanOrEqual(Math.max(0, partition));
            for (const r of journal.scan.records) expect(r.offset % RECORD_ALIGN).toBe(0);
          }
        } finally {
          reads.mockRestore();
          allocations.mockRestore();
        }
      }),
      fuzzParameters(60),
    );
  });

  it("appends a crash inside the partition the agent opened, or not at all", async () => {
    await fc.assert(
      fc.asyncProperty(journalFile, fc.constantFrom(512, 4096), async (file, block) => {
        // The agent opens the journal partition itself: it starts at 0 and ends with the file.
        const whole = { ...file, start: 0 };
        await writeFile(whole);
        const journal = await readJournal(handle, 0, whole.length);
        if (!journal) return;
        const crash = sampleCrash(99);
        const after = await appendCrashes(handle, journal, [crash], block);
        expect((await handle.stat()).size).toBe(whole.length);
        const fits = encodeRecord(1, crash).length <= journal.areaSize;
        expect(after.scan.records.some((r) => r.crash.id === crash.id)).toBe(fits);
        const again = await readJournal(handle, 0, whole.length);
        expect(again?.scan.records.some((r) => r.crash.id === crash.id)).toBe(fits);
      }),
      fuzzParameters(60),
    );
  });
});
