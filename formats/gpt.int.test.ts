// The GPT reader against tables written by sfdisk, the tool the installer writes them with.
import { open, rm, truncate } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { run } from "../tools/exec.ts";
import { parseGpt } from "./gpt.ts";

const file = join(tmpdir(), `liken-gpt-test-${process.pid}.img`);
afterAll(() => rm(file, { force: true }));

async function head(): Promise<Buffer> {
  const h = await open(file, "r");
  const b = Buffer.alloc(1024 * 1024);
  await h.read(b, 0, b.length, 0);
  await h.close();
  return b;
}

describe("parseGpt", () => {
  it("reads names, types, UUIDs and offsets exactly as sfdisk wrote them", async () => {
    await truncate(file, 0).catch(() => undefined);
    await run("truncate", ["-s", "1G", file]);
    const script = [
      "label: gpt",
      "label-id: 11111111-2222-3333-4444-555555555555",
      'start=2048, size=1048576, type=C12A7328-F81F-11D2-BA4B-00A0C93EC93B, uuid=AAAAAAAA-BBBB-CCCC-DDDD-EEEEEEEEEEEE, name="liken-esp"',
      'size=204800, type=4F68BCE3-E8CD-4DB1-96E7-FBCAF984B709, name="liken-a"',
      "",
    ].join("\n");
    await run("sfdisk", ["--quiet", file], { input: script });
    const gpt = parseGpt(await head());
    expect(gpt?.diskGuid).toBe("11111111-2222-3333-4444-555555555555");
    expect(gpt?.entries.map((e) => [e.number, e.name, e.typeGuid, e.start, e.size])).toEqual([
      [1, "liken-esp", "C12A7328-F81F-11D2-BA4B-00A0C93EC93B", 1024 * 1024, 512 * 1024 * 1024],
      [2, "liken-a", "4F68BCE3-E8CD-4DB1-96E7-FBCAF984B709", 513 * 1024 * 1024, 100 * 1024 * 1024],
    ]);
    expect(gpt?.entries[0]?.uuid).toBe("AAAAAAAA-BBBB-CCCC-DDDD-EEEEEEEEEEEE");
  });

  it("finds nothing in zeros, and nothing in a table whose checksum is wrong", async () => {
    expect(parseGpt(Buffer.alloc(1024 * 1024))).toBeUndefined();
    const b = await head();
    b[512 + 100] = 0xff; // inside the header's reserved bytes, covered by its CRC
    b[512 + 24] = (b[512 + 24] as number) ^ 1; // my LBA
    expect(parseGpt(b)).toBeUndefined();
  });
});
