import { crc32 } from "node:zlib";
import { describe, expect, it } from "vitest";
import { judgeBackupGpt, judgeGpt } from "./gpt.ts";
import { encodeGpt } from "./gpt-encode.ts";

const MIB = 1024 * 1024;
const DISK = 8 * MIB;
const LINUX = "0FC63DAF-8483-4772-8E79-3D477DE4709C";

function disk(entries = [{ start: MIB, size: 2 * MIB }]): Buffer {
  const gpt = encodeGpt({
    diskSize: DISK,
    sectorSize: 512,
    diskGuid: "4C494B45-0000-4000-8000-000000000001",
    entries: entries.map((e, i) => ({
      ...e,
      typeGuid: LINUX,
      uuid: `4C494B45-0000-4000-8000-00000000001${i}`,
      name: `p${i}`,
    })),
  });
  const bytes = Buffer.alloc(DISK);
  gpt.head.copy(bytes, 0);
  gpt.tail.copy(bytes, gpt.tailOffset);
  return bytes;
}

// A header field changed and the header's CRC recomputed, as a writer that meant it would.
function withHeader(bytes: Buffer, at: number, set: (h: Buffer) => void): Buffer {
  const h = bytes.subarray(at, at + 92);
  set(h);
  h.writeUInt32LE(0, 16);
  h.writeUInt32LE(crc32(h), 16);
  return bytes;
}

// An entry's field changed and both CRCs recomputed.
function withEntry(bytes: Buffer, index: number, first: bigint, last: bigint): Buffer {
  const e = bytes.subarray(1024 + index * 128, 1024 + (index + 1) * 128);
  e.writeBigUInt64LE(first, 32);
  e.writeBigUInt64LE(last, 40);
  return withHeader(bytes, 512, (h) =>
    h.writeUInt32LE(crc32(bytes.subarray(1024, 1024 + 16384)), 88),
  );
}

const primary = (bytes: Buffer) => judgeGpt(bytes.subarray(0, 2 * MIB), [512], DISK);
const flawOf = (bytes: Buffer) => {
  const v = primary(bytes);
  return v.state === "implausible" ? v.flaw : v.state;
};

describe("a GPT is judged against the UEFI specification before its entries are read", () => {
  it("reads a table a partitioning tool wrote as valid, at both ends", () => {
    expect(flawOf(disk())).toBe("valid");
    expect(judgeBackupGpt(disk().subarray(DISK - 2 * MIB), DISK, [512]).state).toBe("valid");
  });

  it.each([
    ["a header naming 12,976,256 entries", 80, 12_976_256, "entry-count"],
    ["a header naming no entry", 80, 0, "entry-count"],
    ["entries of 129 bytes", 84, 129, "entry-size"],
    ["entries of 384 bytes", 84, 384, "entry-size"],
    ["a header of 91 bytes", 12, 91, "header-size"],
    ["a header larger than its sector", 12, 513, "header-size"],
    ["a header that says it lies elsewhere", 24, 7, "header-lba"],
  ])("%s is implausible", (_, at, value, flaw) => {
    const bytes = withHeader(disk(), 512, (h) =>
      at === 24 ? h.writeBigUInt64LE(BigInt(value), at) : h.writeUInt32LE(value, at),
    );
    expect(flawOf(bytes)).toBe(flaw);
  });

  it.each([
    ["a first usable sector past the last", 40, 20_000n, "usable-range"],
    ["a usable range past the disk's end", 48, 1n << 40n, "usable-range"],
    ["an entry array inside the usable range", 72, 4096n, "entry-array"],
    ["an entry array past the disk's end", 72, 1n << 50n, "entry-array"],
  ])("%s is implausible", (_, at, value, flaw) => {
    expect(flawOf(withHeader(disk(), 512, (h) => h.writeBigUInt64LE(value, at)))).toBe(flaw);
  });

  it("a header whose CRC or whose entries' CRC does not match is implausible", () => {
    const header = disk();
    header.writeUInt8(header.readUInt8(512 + 16) ^ 1, 512 + 16);
    expect(flawOf(header)).toBe("header-crc");
    const entries = disk();
    entries.writeUInt8(entries.readUInt8(1024 + 56) ^ 1, 1024 + 56);
    expect(flawOf(entries)).toBe("entry-array-crc");
  });

  it("a partition that ends before it starts, leaves the usable range, or overlaps another is implausible", () => {
    expect(flawOf(withEntry(disk(), 0, 4096n, 4095n))).toBe("entry-range");
    expect(flawOf(withEntry(disk(), 0, 2048n, BigInt(DISK / 512)))).toBe("entry-range");
    const two = disk([
      { start: MIB, size: 2 * MIB },
      { start: 4 * MIB, size: MIB },
    ]);
    expect(flawOf(two)).toBe("valid");
    expect(flawOf(withEntry(two, 1, 4095n, 6000n))).toBe("entry-overlap");
  });

  it("the backup header at the disk's end is judged the same way", () => {
    const bytes = withHeader(disk(), DISK - 512, (h) => h.writeUInt32LE(12_976_256, 80));
    expect(judgeBackupGpt(bytes.subarray(DISK - 2 * MIB), DISK, [512])).toEqual({
      state: "implausible",
      flaw: "entry-count",
      sectorSize: 512,
    });
    expect(flawOf(bytes)).toBe("valid");
  });

  it("no header is none, and an implausible one at either sector size says why", () => {
    expect(judgeGpt(Buffer.alloc(64 * 1024)).state).toBe("none");
    const bytes = withHeader(disk(), 512, (h) => h.writeUInt32LE(0, 80));
    expect(judgeGpt(bytes.subarray(0, MIB), [512, 4096])).toMatchObject({ flaw: "entry-count" });
  });
});
