// DER from a signature in an EFI program or a certificate in db: any bytes read as a TLV
// and its children, or a DerError.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { fuzzParameters, mutated, readsWithin } from "../test/fuzz.ts";
import { children, DerError, integer, octetString, oid, readElement, sequence } from "./der.ts";

const valid = sequence(
  oid("1.2.840.113549.1.7.2"),
  sequence(integer(1), octetString(Buffer.alloc(300, 7)), sequence()),
);

// A TLV and its children, two levels down: what the signer check walks.
function walk(bytes: Buffer): number {
  const top = readElement(bytes);
  let count = 0;
  for (const child of children(top)) {
    count++;
    if (child.tag & 0x20) count += children(child).length;
  }
  expect(top.encoded.length).toBeLessThanOrEqual(bytes.length);
  return count;
}

describe("DER, fuzzed", () => {
  it("reads any bytes as elements or a DerError", () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 64 }), (bytes) => {
        readsWithin(walk, bytes, [DerError]);
      }),
      fuzzParameters(),
    );
  });

  it("reads damaged DER as elements or a DerError", () => {
    fc.assert(
      fc.property(mutated(valid), (bytes) => {
        readsWithin(walk, bytes, [DerError]);
      }),
      fuzzParameters(),
    );
  });

  it("reads a length of any form, cut off anywhere", () => {
    const lengths = fc.tuple(
      fc.nat(255),
      fc.integer({ min: 0x80, max: 0x88 }),
      fc.uint8Array({ maxLength: 6 }),
    );
    fc.assert(
      fc.property(lengths, ([tag, first, rest]) => {
        readsWithin(walk, Buffer.from([tag, first, ...rest]), [DerError]);
      }),
      fuzzParameters(),
    );
  });
});
