// The MBR reader on tables written by hand, then fuzzed (test/fuzz.ts): it answers every
// first sector, and every chain of EBRs ends, inside its extended partition.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { fuzzParameters, readsWithin } from "../test/fuzz.ts";
import { judgeMbr, logicalPartitions, MAX_LOGICAL, type MbrPartition } from "./mbr.ts";

const S = 512;

interface Row {
  readonly type: number;
  readonly first: number;
  readonly sectors: number;
  readonly flag?: number;
}

function record(rows: readonly Row[]): Buffer {
  const b = Buffer.alloc(S);
  rows.forEach((r, i) => {
    const at = 446 + 16 * i;
    b[at] = r.flag ?? 0;
    b[at + 4] = r.type;
    b.writeUInt32LE(r.first, at + 8);
    b.writeUInt32LE(r.sectors, at + 12);
  });
  b[510] = 0x55;
  b[511] = 0xaa;
  return b;
}

// A disk of `sectors` sectors whose EBRs are written at the sector numbers given.
function diskWith(sectors: number, ebrs: Record<number, readonly Row[]>) {
  const bytes = Buffer.alloc(sectors * S);
  for (const [at, rows] of Object.entries(ebrs)) record(rows).copy(bytes, Number(at) * S);
  let reads = 0;
  const readSector = async (offset: number) => {
    reads++;
    return offset + S <= bytes.length ? bytes.subarray(offset, offset + S) : undefined;
  };
  return { readSector, reads: () => reads };
}

const EXTENDED: MbrPartition = { start: 100 * S, size: 900 * S };

describe("the MBR reader", () => {
  it("lists the four entries' partitions and the extended one, and no GPT's protective entry", () => {
    expect(
      judgeMbr(
        record([
          { type: 0x83, first: 2048, sectors: 100 },
          { type: 0x05, first: 4096, sectors: 1000 },
          { type: 0xee, first: 1, sectors: 10 },
        ]),
      ),
    ).toEqual({
      state: "valid",
      partitions: [
        { start: 2048 * S, size: 100 * S },
        { start: 4096 * S, size: 1000 * S },
      ],
      extended: { start: 4096 * S, size: 1000 * S },
    });
  });

  it("reads boot code (a boot flag other than 0x00 or 0x80) as no table, and two extended partitions as implausible", () => {
    expect(judgeMbr(record([{ type: 0x83, first: 1, sectors: 1, flag: 0x12 }]))).toEqual({
      state: "none",
    });
    const twice = record([
      { type: 0x05, first: 100, sectors: 10 },
      { type: 0x0f, first: 200, sectors: 10 },
    ]);
    expect(judgeMbr(twice)).toEqual({ state: "implausible", flaw: "extended-twice" });
  });

  it("follows the chain of EBRs to each logical partition", async () => {
    const disk = diskWith(1000, {
      100: [
        { type: 0x83, first: 1, sectors: 99 },
        { type: 0x05, first: 100, sectors: 200 },
      ],
      200: [{ type: 0x83, first: 1, sectors: 50 }],
    });
    expect(await logicalPartitions(EXTENDED, S, disk.readSector)).toEqual([
      { start: 101 * S, size: 99 * S },
      { start: 201 * S, size: 50 * S },
    ]);
  });

  it.each([
    [
      "an EBR that names itself",
      {
        100: [
          { type: 0x83, first: 1, sectors: 9 },
          { type: 0x05, first: 0, sectors: 9 },
        ],
      },
      "chain-loop",
    ],
    [
      "two EBRs that name each other",
      {
        100: [
          { type: 0, first: 0, sectors: 0 },
          { type: 0x05, first: 50, sectors: 9 },
        ],
        150: [
          { type: 0, first: 0, sectors: 0 },
          { type: 0x05, first: 0, sectors: 9 },
        ],
      },
      "chain-loop",
    ],
    [
      "an EBR outside the extended partition",
      {
        100: [
          { type: 0, first: 0, sectors: 0 },
          { type: 0x05, first: 5000, sectors: 9 },
        ],
      },
      "chain-outside",
    ],
    [
      "a logical partition past the extended partition's end",
      { 100: [{ type: 0x83, first: 1, sectors: 5000 }] },
      "chain-outside",
    ],
  ])("%s is implausible", async (_, ebrs, flaw) => {
    const disk = diskWith(1000, ebrs as Record<number, Row[]>);
    expect(await logicalPartitions(EXTENDED, S, disk.readSector)).toEqual({ flaw });
  });

  it("stops a chain longer than Linux reads, after as many reads", async () => {
    const ebrs: Record<number, Row[]> = {};
    for (let i = 0; i < 300; i++)
      ebrs[100 + 2 * i] = [
        { type: 0x83, first: 1, sectors: 1 },
        { type: 0x05, first: 2 * (i + 1), sectors: 2 },
      ];
    const disk = diskWith(1000, ebrs);
    expect(await logicalPartitions(EXTENDED, S, disk.readSector)).toEqual({ flaw: "chain-long" });
    expect(disk.reads()).toBe(MAX_LOGICAL);
  });
});

describe("the MBR reader, fuzzed", () => {
  it("judges any first sector without throwing or reading past it", () => {
    const sector = fc.uint8Array({ minLength: 512, maxLength: 512 }).map((b) => {
      const s = Buffer.from(b);
      s[510] = 0x55;
      s[511] = 0xaa;
      return s;
    });
    fc.assert(
      fc.property(fc.oneof(sector, fc.uint8Array({ maxLength: 600 })), (b) => {
        readsWithin((x) => judgeMbr(x, S), b);
        readsWithin((x) => judgeMbr(x, 4096), b);
      }),
      fuzzParameters(),
    );
  });

  it("walks any chain of EBRs to an end, in at most MAX_LOGICAL reads, every logical partition inside", async () => {
    const row = fc.record({
      type: fc.constantFrom(0, 0x05, 0x0f, 0x83, 0x85),
      first: fc.oneof(fc.nat({ max: 1200 }), fc.nat({ max: 0xffffffff })),
      sectors: fc.oneof(fc.nat({ max: 1200 }), fc.nat({ max: 0xffffffff })),
    });
    const ebrs = fc.dictionary(
      fc.integer({ min: 90, max: 1010 }).map(String),
      fc.array(row, { minLength: 0, maxLength: 4 }),
      { maxKeys: 40 },
    );
    await fc.assert(
      fc.asyncProperty(ebrs, async (chain) => {
        const disk = diskWith(1000, chain as Record<number, Row[]>);
        const found = await logicalPartitions(EXTENDED, S, disk.readSector);
        expect(disk.reads()).toBeLessThanOrEqual(MAX_LOGICAL);
        if ("flaw" in found) return;
        for (const p of found) {
          expect(p.start).toBeGreaterThanOrEqual(EXTENDED.start);
          expect(p.start + p.size).toBeLessThanOrEqual(EXTENDED.start + EXTENDED.size);
        }
      }),
      fuzzParameters(),
    );
  });
});
