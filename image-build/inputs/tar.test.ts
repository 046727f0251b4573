import { randomBytes } from "node:crypto";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { gzipSync } from "node:zlib";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { extractTarMember } from "./tar.ts";

function header(name: string, size: number, type: string, prefix = ""): Buffer {
  const h = Buffer.alloc(512);
  h.write(name, 0, 100);
  h.write("0000644\0", 100);
  h.write(`${size.toString(8).padStart(11, "0")}\0`, 124);
  h.write(type, 156);
  h.write("ustar\0" + "00", 257);
  h.write(prefix, 345, 155);
  h.write("        ", 148);
  let sum = 0;
  for (const b of h) sum += b;
  h.write(`${sum.toString(8).padStart(6, "0")}\0 `, 148);
  return h;
}

function entry(name: string, data: Buffer, type = "0", prefix = ""): Buffer {
  const pad = Buffer.alloc((512 - (data.length % 512)) % 512);
  return Buffer.concat([header(name, data.length, type, prefix), data, pad]);
}

function pax(path: string): Buffer {
  const record = ` path=${path}\n`;
  let length = record.length;
  while (`${length}${record}`.length !== length) length = `${length}${record}`.length;
  return entry("PaxHeader", Buffer.from(`${length}${record}`), "x");
}

let dir: string;
let archive: string;
const big = randomBytes(300_000);
const longName = `package/${"d".repeat(120)}/node`;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "liken-tar-test-"));
  archive = join(dir, "a.tgz");
  const tar = Buffer.concat([
    entry("package/README.md", Buffer.from("hello\n")),
    entry("package/bin/", Buffer.alloc(0), "5"),
    entry("package/bin/node", big),
    entry("node", Buffer.from("prefixed"), "0", "package/lib"),
    pax(longName),
    entry("ignored-short-name", Buffer.from("via pax")),
    entry("././@LongLink", Buffer.from(`${longName}2\0`), "L"),
    entry("ignored-too", Buffer.from("via gnu")),
    Buffer.alloc(1024),
  ]);
  await writeFile(archive, gzipSync(tar));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe("extractTarMember", () => {
  it("streams a large member out byte for byte", async () => {
    expect(await extractTarMember(archive, "package/bin/node", join(dir, "node"))).toBe(true);
    expect((await readFile(join(dir, "node"))).equals(big)).toBe(true);
  });

  it("finds names split into ustar prefix, pax path and GNU long name", async () => {
    expect(await extractTarMember(archive, "package/lib/node", join(dir, "p"))).toBe(true);
    expect(await readFile(join(dir, "p"), "utf8")).toBe("prefixed");
    expect(await extractTarMember(archive, longName, join(dir, "x"))).toBe(true);
    expect(await readFile(join(dir, "x"), "utf8")).toBe("via pax");
    expect(await extractTarMember(archive, `${longName}2`, join(dir, "l"))).toBe(true);
    expect(await readFile(join(dir, "l"), "utf8")).toBe("via gnu");
  });

  it("answers false for a member the archive lacks, or a folder", async () => {
    expect(await extractTarMember(archive, "package/bin/npm", join(dir, "n"))).toBe(false);
    expect(await extractTarMember(archive, "package/bin/", join(dir, "n"))).toBe(false);
  });
});
