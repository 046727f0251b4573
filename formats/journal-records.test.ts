// The crash journal's records area as bytes: what survives a torn write, damage and the
// ring wrapping over its oldest records.
import { describe, expect, it } from "vitest";
import { sampleCrash } from "../test/fixtures/crash.ts";
import type { CrashRecord } from "./journal-records.ts";
import {
  appendOffset,
  encodeRecord,
  type JournalScan,
  MAX_PAYLOAD,
  nextSeq,
  RECORD_ALIGN,
  RECORD_HEADER,
  scanRecords,
} from "./journal-records.ts";

/** Appends as the agent does: after the newest record, wrapping when it does not fit. */
function append(area: Buffer, scan: JournalScan, record: CrashRecord): JournalScan {
  const bytes = encodeRecord(nextSeq(scan), record);
  bytes.copy(area, appendOffset(scan, bytes.length, area.length));
  return scanRecords(area);
}

function ids(scan: JournalScan): string[] {
  return scan.records.map((r) => r.crash.id);
}

describe("encodeRecord and scanRecords", () => {
  it("read back what was written, aligned to 512 bytes", () => {
    const bytes = encodeRecord(7, sampleCrash(1));
    expect(bytes.length % RECORD_ALIGN).toBe(0);
    expect(bytes.subarray(0, 8).toString("ascii")).toBe("LIKENCR1");
    const area = Buffer.alloc(8192);
    bytes.copy(area, 0);
    expect(scanRecords(area)).toEqual({
      records: [{ seq: 7, offset: 0, span: bytes.length, crash: sampleCrash(1) }],
      skipped: 0,
    });
  });

  it("reads an empty (zeroed) area as no records and nothing skipped", () => {
    expect(scanRecords(Buffer.alloc(64 * 1024))).toEqual({ records: [], skipped: 0 });
    expect(scanRecords(new Uint8Array(0))).toEqual({ records: [], skipped: 0 });
  });

  it("lists records newest first by sequence number, wherever they sit", () => {
    const area = Buffer.alloc(8192);
    encodeRecord(5, sampleCrash(5)).copy(area, 0);
    encodeRecord(3, sampleCrash(3)).copy(area, 1024);
    encodeRecord(4, sampleCrash(4)).copy(area, 2048);
    const scan = scanRecords(area);
    expect(scan.records.map((r) => [r.seq, r.offset])).toEqual([
      [5, 0],
      [4, 2048],
      [3, 1024],
    ]);
  });

  it("takes only a magic on the 512-byte grid as a record: one inside a kernel line or torn at the end is data", () => {
    const area = Buffer.alloc(8192);
    const record = encodeRecord(1, {
      ...sampleCrash(1),
      lines: ["a line that says LIKENCR1 in it"],
    });
    record.copy(area, 1024);
    // The magic 100 bytes off the grid, and again in the area's last bytes.
    encodeRecord(2, sampleCrash(2)).copy(area, 3172);
    area.write("LIKENCR1", area.length - 8, "ascii");
    expect(scanRecords(area).records.map((r) => [r.seq, r.offset])).toEqual([[1, 1024]]);
    expect(scanRecords(area).skipped).toBe(0);
  });

  it("reads a record inside a larger buffer (a subarray at an offset)", () => {
    const disk = Buffer.alloc(4096 + 8192);
    encodeRecord(1, sampleCrash(1)).copy(disk, 4096);
    expect(ids(scanRecords(disk.subarray(4096)))).toEqual([sampleCrash(1).id]);
  });
});

describe("damage", () => {
  function threeRecords(): { area: Buffer; offsets: number[] } {
    const area = Buffer.alloc(16 * 1024);
    let scan = scanRecords(area);
    for (const n of [1, 2, 3]) scan = append(area, scan, sampleCrash(n, 20));
    return { area, offsets: scan.records.map((r) => r.offset).reverse() };
  }

  it("skips and counts a torn record (payload cut short, CRC wrong), and reads the records after it", () => {
    const { area, offsets } = threeRecords();
    const torn = offsets[1] as number;
    // A power loss after the first sector of record 2: the rest of it never reached the disk.
    area.fill(0, torn + RECORD_ALIGN, offsets[2]);
    const scan = scanRecords(area);
    expect(ids(scan)).toEqual([sampleCrash(3).id, sampleCrash(1).id]);
    expect(scan.skipped).toBe(1);
  });

  it("skips a record whose CRC does not match after one flipped bit", () => {
    const { area, offsets } = threeRecords();
    const at = (offsets[0] as number) + RECORD_HEADER + 40;
    area[at] = (area[at] ?? 0) ^ 0x04;
    const scan = scanRecords(area);
    expect(ids(scan)).toEqual([sampleCrash(3).id, sampleCrash(2).id]);
    expect(scan.skipped).toBe(1);
  });

  it("skips a record with a corrupt length: zero, larger than any payload, or past the area", () => {
    for (const length of [0, MAX_PAYLOAD + 1, 0xffffffff, 16 * 1024]) {
      const { area, offsets } = threeRecords();
      area.writeUInt32LE(length, (offsets[1] as number) + 16);
      const scan = scanRecords(area);
      expect(ids(scan), `length ${length}`).toEqual([sampleCrash(3).id, sampleCrash(1).id]);
      expect(scan.skipped).toBe(1);
    }
  });

  it("skips a record whose CRC matches but whose payload is not a crash record", () => {
    const bytes = encodeRecord(1, sampleCrash(1));
    const area = Buffer.alloc(4096);
    bytes.copy(area);
    // Rewrite the payload as JSON that is not a record, with a CRC that matches it.
    const forged = encodeRecord(1, { nope: true } as unknown as CrashRecord);
    forged.copy(area);
    expect(scanRecords(area)).toEqual({ records: [], skipped: 1 });
  });

  it("appends over a torn newest record, in its place", () => {
    const { area, offsets } = threeRecords();
    area.fill(0, (offsets[2] as number) + RECORD_ALIGN); // record 3 torn
    let scan = scanRecords(area);
    expect(scan.skipped).toBe(1);
    expect(appendOffset(scan, RECORD_ALIGN, area.length)).toBe(offsets[2]);
    expect(nextSeq(scan)).toBe(3);
    scan = append(area, scan, sampleCrash(4));
    expect(ids(scan)).toEqual([sampleCrash(4).id, sampleCrash(2).id, sampleCrash(1).id]);
    expect(scan.skipped).toBe(0);
  });
});

describe("the ring", () => {
  it("appends after the newest record, with the next sequence number", () => {
    const area = Buffer.alloc(8192);
    let scan = scanRecords(area);
    expect(appendOffset(scan, 512, area.length)).toBe(0);
    expect(nextSeq(scan)).toBe(1);
    scan = append(area, scan, sampleCrash(1));
    const span = scan.records[0]?.span ?? 0;
    expect(appendOffset(scan, 512, area.length)).toBe(span);
    expect(nextSeq(scan)).toBe(2);
  });

  it("wraps to the start when the next record does not fit; the overwritten records vanish without being counted as corrupt", () => {
    const area = Buffer.alloc(5 * 1024);
    let scan = scanRecords(area);
    // Records of 1024 bytes: five fit exactly.
    for (let n = 1; n <= 5; n++) scan = append(area, scan, sampleCrash(n, 20));
    expect(scan.records.every((r) => r.span === 1024)).toBe(true);
    expect(scan.records.map((r) => r.seq)).toEqual([5, 4, 3, 2, 1]);
    expect(appendOffset(scan, 1024, area.length)).toBe(0);
    // A small record overwrites the start of the oldest one.
    scan = append(area, scan, sampleCrash(6));
    expect(scan.records[0]).toMatchObject({ seq: 6, offset: 0, span: 512 });
    expect(ids(scan)).toEqual([6, 5, 4, 3, 2].map((n) => sampleCrash(n).id));
    expect(scan.skipped).toBe(0);
    // A big one, right after it, overwrites the rest of record 1 and the head of record 2.
    scan = append(area, scan, sampleCrash(7, 20));
    expect(scan.records[0]).toMatchObject({ seq: 7, offset: 512, span: 1024 });
    expect(ids(scan)).toEqual([7, 6, 5, 4, 3].map((n) => sampleCrash(n).id));
    expect(scan.skipped).toBe(0);
  });

  it("keeps the newest records through many wraps, never counting one as corrupt", () => {
    const area = Buffer.alloc(16 * 1024);
    let scan = scanRecords(area);
    for (let n = 1; n <= 200; n++) {
      scan = append(area, scan, sampleCrash(n, n % 40));
      expect(scan.skipped, `after record ${n}`).toBe(0);
      expect(scan.records[0]?.crash.id).toBe(sampleCrash(n).id);
      expect(nextSeq(scan)).toBe(n + 1);
      // Newest first, and the newest three are always there. (A record the previous lap left
      // past the end of this lap's last record can outlive a newer one at the start: the
      // ring drops whole laps' leftovers late, never a record it was just given.)
      const seqs = scan.records.map((r) => r.seq);
      expect(seqs).toEqual([...seqs].sort((x, y) => y - x));
      expect(seqs.slice(0, 3)).toEqual([n, n - 1, n - 2].filter((s) => s > 0));
    }
    expect(scan.records.length).toBeGreaterThan(3);
  });

  it("starts each record on the disk's physical block, and reads them back where they were written", () => {
    const area = Buffer.alloc(20 * 1024);
    let scan = scanRecords(area);
    const offsets: number[] = [];
    for (let n = 1; n <= 6; n++) {
      const bytes = encodeRecord(nextSeq(scan), sampleCrash(n, n * 3));
      const at = appendOffset(scan, bytes.length, area.length, 4096);
      bytes.copy(area, at);
      offsets.push(at);
      scan = scanRecords(area);
    }
    // Records under 4 KiB each own one block; the sixth does not fit and wraps to the start.
    expect(offsets).toEqual([0, 4096, 8192, 12288, 16384, 0]);
    expect(scan.skipped).toBe(0);
    expect(scan.records[0]).toMatchObject({ seq: 6, offset: 0 });
  });

  it("never places a record past the end of the area", () => {
    const area = Buffer.alloc(3000);
    let scan = scanRecords(area);
    for (let n = 1; n <= 20; n++) {
      const bytes = encodeRecord(nextSeq(scan), sampleCrash(n));
      const at = appendOffset(scan, bytes.length, area.length);
      expect(at + bytes.length).toBeLessThanOrEqual(area.length);
      scan = append(area, scan, sampleCrash(n));
    }
  });
});
