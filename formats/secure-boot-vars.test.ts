import { X509Certificate } from "node:crypto";
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { decodeSignatureLists, encodeSignatureLists } from "./secure-boot-vars.ts";

const cert = (name: string) =>
  new X509Certificate(readFileSync(`test/fixtures/keys/cluster/${name}.crt`)).raw;

describe("EFI signature lists", () => {
  it("hold one list per certificate and read back in order", () => {
    const entries = [
      { owner: "AFD13149-C1C3-44DC-8090-0FACD5D0CC7B", certificate: cert("db") },
      { owner: "77FA9ABD-0359-4D32-BD60-28F4E78F784B", certificate: cert("KEK") },
    ];
    const value = encodeSignatureLists(entries);
    // header 28 + owner 16 + DER, per certificate
    expect(value.length).toBe(entries.reduce((n, e) => n + 44 + e.certificate.length, 0));
    expect(decodeSignatureLists(value)).toEqual(entries);
  });

  it("match the lists liken-stick keys wrote", () => {
    expect(decodeSignatureLists(readFileSync("test/fixtures/keys/cluster/db.esl"))).toEqual([
      { owner: "AFD13149-C1C3-44DC-8090-0FACD5D0CC7B", certificate: cert("db") },
    ]);
  });

  it("stop at a list whose size runs past the value", () => {
    const value = encodeSignatureLists([
      { owner: "AFD13149-C1C3-44DC-8090-0FACD5D0CC7B", certificate: cert("db") },
    ]);
    value.writeUInt32LE(value.length + 1, 16);
    expect(decodeSignatureLists(value)).toEqual([]);
  });
});
