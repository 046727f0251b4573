import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DiskReader, ReadBudgetSpent } from "./disk-reader.ts";
import { Budget } from "./probe-budget.ts";

const MIB = 1024 * 1024;
let dir: string;
let file: string;
const bytes = Buffer.alloc(3 * MIB + 100);
for (let i = 0; i < bytes.length; i++) bytes[i] = (i * 7) % 251;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "liken-disk-reader-"));
  file = join(dir, "disk.img");
  await writeFile(file, bytes);
});
afterAll(() => rm(dir, { recursive: true, force: true }));

describe("a disk's reader", () => {
  it("reads regions larger than a chunk, cut at the disk's end, and closes when done", async () => {
    const reader = new DiskReader(file, bytes.length, new Budget(2_000));
    const [head, across, end] = await Promise.all([
      reader.read(0, 2 * MIB),
      reader.read(MIB - 10, MIB + 20),
      reader.read(bytes.length - 50, 4096),
    ]);
    expect(head.equals(bytes.subarray(0, 2 * MIB))).toBe(true);
    expect(across.equals(bytes.subarray(MIB - 10, 2 * MIB + 10))).toBe(true);
    expect(end.equals(bytes.subarray(bytes.length - 50))).toBe(true);
    reader.close();
    expect(DiskReader.stillReading(file)).toBe(false);
  });

  it("calls a disk shorter than it says an error, not zeros", async () => {
    const reader = new DiskReader(file, bytes.length + MIB, new Budget(2_000));
    await expect(reader.read(bytes.length - 10, 100)).rejects.toThrow(/short read/);
    reader.close();
  });

  it("starts no read once its budget is spent", async () => {
    const reader = new DiskReader(file, bytes.length, new Budget(0));
    await expect(reader.read(0, 10)).rejects.toBeInstanceOf(ReadBudgetSpent);
    reader.close();
  });
});
