// The claim is the first thing read from any disk, liken's or not: its two copies are
// untrusted bytes, and what they decode to is shown by `disks` and `inspect`.
import { crc32 } from "node:zlib";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { fuzzParameters, mutated, readsWithin } from "../test/fuzz.ts";
import {
  CLAIM_SIZE,
  type Claim,
  decodeClaim,
  encodeClaim,
  judgeClaim,
  summarizeClaim,
} from "./claim.ts";

const claim: Claim = {
  cluster: "mycluster",
  machine: "leader-1",
  installId: "0b7e8a52-34c1-4b7f-9a55-3f1d2e4c5a6b",
  release: "1.0.0",
  use: "system",
  complete: true,
  createdAt: 1_764_547_200,
  generation: 3,
};

// Random bytes almost never pass the checksum; these do, so every field behind it is judged
// (half of them with a start time a Date holds, which random bytes seldom are).
const sealed = fc
  .tuple(fc.uint8Array({ minLength: CLAIM_SIZE, maxLength: CLAIM_SIZE }), fc.boolean())
  .map(([raw, timely]) => {
    const b = Buffer.from(raw);
    if (timely) b.fill(0, 245, 248);
    b.write("LIKENCLM", 0, "ascii");
    b.writeUInt32LE(1, 8);
    b.writeUInt8((b[32] as number) % 3, 32);
    b.writeUInt32LE(crc32(b.subarray(0, CLAIM_SIZE - 4)), CLAIM_SIZE - 4);
    return b;
  });

// What `disks` and `inspect` do with a copy: decode it and show it.
function shown(bytes: Buffer) {
  const decoded = decodeClaim(bytes);
  return decoded && summarizeClaim(decoded);
}

describe("the claim's reader, fuzzed", () => {
  it("reads any bytes as a claim or nothing, and only the bytes it is given", () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 2 * CLAIM_SIZE }), (bytes) => {
        readsWithin(shown, bytes);
      }),
      fuzzParameters(),
    );
  });

  it("reads a damaged copy as nothing, or as a claim it can show", () => {
    fc.assert(
      fc.property(mutated(encodeClaim(claim)), (bytes) => {
        readsWithin(shown, bytes);
      }),
      fuzzParameters(),
    );
  });

  it("shows any copy whose checksum holds, whatever its fields say", () => {
    fc.assert(
      fc.property(sealed, (bytes) => {
        readsWithin(shown, bytes);
      }),
      fuzzParameters(),
    );
  });

  it("judges any two copies as none, valid or conflict", () => {
    const copy = fc.oneof(sealed, mutated(encodeClaim(claim)), fc.constant(encodeClaim(claim)));
    fc.assert(
      fc.property(copy, copy, (head, tail) => {
        const verdict = judgeClaim(head, tail);
        expect(["none", "valid", "conflict"]).toContain(verdict.state);
        if (verdict.state === "valid") summarizeClaim(verdict.claim);
      }),
      fuzzParameters(),
    );
  });
});
