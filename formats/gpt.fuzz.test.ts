// The GPT reader over damaged and arbitrary bytes (test/fuzz.ts): it answers none, valid or
// implausible, never throws, reads nothing outside its bytes, and what it calls valid is
// a table the probe may trust: every partition inside the usable range, inside the disk.
import { crc32 } from "node:zlib";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { fuzzParameters, mutated, readsWithin } from "../test/fuzz.ts";
import { type GptVerdict, judgeBackupGpt, judgeGpt, MAX_ENTRY_ARRAY } from "./gpt.ts";
import { encodeGpt } from "./gpt-encode.ts";

const MIB = 1024 * 1024;
const DISK = 4 * MIB;

function validDisk(sectorSize: number): Buffer {
  const gpt = encodeGpt({
    diskSize: DISK,
    sectorSize,
    diskGuid: "4C494B45-0000-4000-8000-000000000001",
    entries: [0, 1, 2].map((i) => ({
      start: (i + 1) * 512 * 1024,
      size: 256 * 1024,
      typeGuid: "0FC63DAF-8483-4772-8E79-3D477DE4709C",
      uuid: `4C494B45-0000-4000-8000-00000000001${i}`,
      name: `part-${i}`,
    })),
  });
  const bytes = Buffer.alloc(DISK);
  gpt.head.copy(bytes, 0);
  gpt.tail.copy(bytes, gpt.tailOffset);
  return bytes;
}

// Mutations that keep both CRCs right, as a buggy or hostile writer would leave them: the
// reader must judge the fields themselves.
function recomputed(bytes: Buffer, headerAt: number): Buffer {
  const h = bytes.subarray(headerAt, headerAt + 92);
  const count = h.readUInt32LE(80);
  const size = h.readUInt32LE(84);
  const lba = Number(h.readBigUInt64LE(72) & 0xffffn);
  const arrayAt = lba * 512;
  if (count * size <= 64 * 1024 && arrayAt + count * size <= bytes.length)
    h.writeUInt32LE(crc32(bytes.subarray(arrayAt, arrayAt + count * size)), 88);
  h.writeUInt32LE(0, 16);
  h.writeUInt32LE(crc32(h), 16);
  return bytes;
}

function expectTrustworthy(v: GptVerdict | Error, diskSize: number): void {
  expect(v).not.toBeInstanceOf(Error);
  if (v instanceof Error || v.state !== "valid") return;
  const spans = v.gpt.entries.map((e) => [e.start, e.start + e.size] as const);
  for (const [start, end] of spans) {
    expect(start).toBeGreaterThan(0);
    expect(end).toBeLessThanOrEqual(diskSize);
    expect(Number.isSafeInteger(end)).toBe(true);
  }
  const sorted = [...spans].sort(([a], [b]) => a - b);
  for (let i = 1; i < sorted.length; i++)
    expect(sorted[i]?.[0]).toBeGreaterThanOrEqual(sorted[i - 1]?.[1] ?? 0);
}

const headerField = fc.oneof(
  fc.record({ at: fc.constantFrom(12, 80, 84, 88), value: fc.nat({ max: 0xffffffff }) }),
  fc.record({
    at: fc.constantFrom(24, 40, 48, 72),
    value: fc.oneof(fc.nat({ max: 20_000 }), fc.nat({ max: Number.MAX_SAFE_INTEGER })),
  }),
);

describe("the GPT reader, fuzzed", () => {
  for (const s of [512, 4096]) {
    const disk = validDisk(s);
    const head = disk.subarray(0, 64 * 1024);
    const tail = disk.subarray(DISK - 64 * 1024);

    it(`judges mutated ${s}-byte-sector tables at both ends without throwing`, () => {
      fc.assert(
        fc.property(mutated(head, 12), mutated(tail, 12), (h, t) => {
          expectTrustworthy(
            readsWithin((b) => judgeGpt(b, [512, 4096], DISK), h),
            DISK,
          );
          expectTrustworthy(
            readsWithin((b) => judgeBackupGpt(b, DISK, [512, 4096]), t),
            DISK,
          );
        }),
        fuzzParameters(),
      );
    });

    it(`judges ${s}-byte-sector headers whose fields were changed and CRCs recomputed`, () => {
      fc.assert(
        fc.property(fc.array(headerField, { minLength: 1, maxLength: 4 }), (fields) => {
          const bytes = Buffer.from(head);
          for (const f of fields) {
            if (f.at === 24 || f.at >= 40) bytes.writeBigUInt64LE(BigInt(f.value), s + f.at);
            else bytes.writeUInt32LE(f.value, s + f.at);
          }
          const v = readsWithin((b) => judgeGpt(b, [s], DISK), recomputed(bytes, s));
          expectTrustworthy(v, DISK);
          if (!(v instanceof Error) && v.state === "valid")
            expect(v.gpt.entries.length).toBeLessThanOrEqual(MAX_ENTRY_ARRAY / 128);
        }),
        fuzzParameters(),
      );
    });
  }

  it("answers arbitrary bytes, of any length, with a verdict", () => {
    fc.assert(
      fc.property(
        fc.uint8Array({ minLength: 0, maxLength: 9000 }),
        fc.nat({ max: 2 ** 40 }),
        (b, size) => {
          const withMagic = Buffer.from(b);
          if (withMagic.length >= 520) withMagic.write("EFI PART", 512, "latin1");
          readsWithin((x) => judgeGpt(x, [512, 4096], size || undefined), withMagic);
          readsWithin((x) => judgeBackupGpt(x, Math.max(size, x.length), [512, 4096]), withMagic);
        },
      ),
      fuzzParameters(),
    );
  });
});
