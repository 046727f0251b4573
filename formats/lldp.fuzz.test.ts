// The LLDP reader on the bytes of any frame a switch (or anything on the wire) sends: it
// answers each one, reads nothing outside it, and its text stays printable and short.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { fuzzParameters, mutated, readsWithin } from "../test/fuzz.ts";
import { lldpFrame, parseLldpFrame } from "./lldp.ts";

const valid = lldpFrame("52:54:00:12:34:56", "eno1", "tor-7a");

function checkNeighbor(bytes: Uint8Array): void {
  const n = readsWithin(parseLldpFrame, bytes);
  if (n === null || n instanceof Error) return;
  for (const s of [n.chassis, n.port, n.systemName ?? "", n.portDescription ?? ""])
    expect(s).toMatch(/^[\x20-\x7e]{0,64}…?$/);
}

describe("parseLldpFrame on untrusted frames", () => {
  it("answers any bytes", () => {
    fc.assert(fc.property(fc.uint8Array({ maxLength: 1600 }), checkNeighbor), fuzzParameters());
  });
  it("answers a real frame damaged anywhere", () => {
    fc.assert(fc.property(mutated(valid), checkNeighbor), fuzzParameters());
  });
});
