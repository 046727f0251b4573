import { describe, expect, it } from "vitest";
import { tinyPe } from "../test/fixtures/tiny-pe.ts";
import {
  addSections,
  attachSignature,
  authenticodeDigest,
  findSignature,
  padForSignature,
  peSections,
  sectionData,
} from "./pe.ts";

describe("addSections", () => {
  it("places each section after the last one, aligned, and keeps its bytes", () => {
    const out = addSections(tinyPe(), [
      { name: ".osrel", data: Buffer.from("ID=liken\n") },
      { name: ".linux", data: Buffer.alloc(0x333, 1) },
    ]);
    expect(peSections(out)).toEqual([
      {
        name: ".text",
        virtualAddress: 0x1000,
        virtualSize: 0x10,
        rawOffset: 0x400,
        rawSize: 0x200,
      },
      { name: ".osrel", virtualAddress: 0x1200, virtualSize: 9, rawOffset: 0x600, rawSize: 0x200 },
      {
        name: ".linux",
        virtualAddress: 0x1400,
        virtualSize: 0x333,
        rawOffset: 0x800,
        rawSize: 0x400,
      },
    ]);
    expect(sectionData(out, ".osrel")?.toString()).toBe("ID=liken\n");
    expect(sectionData(out, ".linux")?.equals(Buffer.alloc(0x333, 1))).toBe(true);
    expect(out.length).toBe(0xc00);
    // SizeOfImage covers the last section.
    expect(out.readUInt32LE(0x44 + 20 + 56)).toBe(0x1800);
  });

  it("refuses a name longer than a section header holds, and a signed image", () => {
    expect(() => addSections(tinyPe(), [{ name: ".toolongname", data: Buffer.from("x") }])).toThrow(
      "longer than 8 bytes",
    );
    const signed = attachSignature(padForSignature(tinyPe()), Buffer.from("3000", "hex"));
    expect(() => addSections(signed, [{ name: ".x", data: Buffer.from("x") }])).toThrow("signed");
  });
});

describe("the Authenticode digest", () => {
  it("leaves out the checksum, the certificate table's entry and the table itself", () => {
    const padded = padForSignature(tinyPe());
    const digest = authenticodeDigest(padded);
    expect(findSignature(padded)).toBeUndefined();
    const signed = attachSignature(padded, Buffer.from("30030201ff", "hex"));
    expect(authenticodeDigest(signed).equals(digest)).toBe(true);
    expect(findSignature(signed)?.toString("hex")).toBe("30030201ff");
    const changed = Buffer.from(padded);
    changed[0x405] = 0x90;
    expect(authenticodeDigest(changed).equals(digest)).toBe(false);
  });
});
