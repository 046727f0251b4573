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
import { claimOwnerBeside } from "./claim-words.ts";

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
// (half of them with a start time a Date holds, which random bytes seldom are, and most with
// a mirror's member and count near the ones liken writes, so the peer's names are read).
const sealed = fc
  .tuple(fc.uint8Array({ minLength: CLAIM_SIZE, maxLength: CLAIM_SIZE }), fc.boolean())
  .map(([raw, timely]) => {
    const b = Buffer.from(raw);
    if (timely) b.fill(0, 245, 248);
    b.write("LIKENCLM", 0, "ascii");
    b.writeUInt32LE(1, 8);
    b.writeUInt8((b[32] as number) % 3, 32);
    b.writeUInt8((b[33] as number) % 4, 33);
    b.writeUInt8((b[34] as number) % 4, 34);
    b.writeUInt32LE(crc32(b.subarray(0, CLAIM_SIZE - 4)), CLAIM_SIZE - 4);
    return b;
  });

const member: Claim = {
  ...claim,
  mirror: { member: 1, peer: { serial: "S4EVNX0N123456", wwn: "0x5002538e4a8b1234" } },
};

// What `disks`, `inspect` and the menu do with a copy: decode it and show it, in JSON and
// in words, which carry no control character from the disk.
function shown(bytes: Buffer) {
  const decoded = decodeClaim(bytes);
  if (!decoded) return undefined;
  const words = claimOwnerBeside(summarizeClaim(decoded));
  expect(words).not.toMatch(/\p{Cc}/u);
  return { summary: summarizeClaim(decoded), words };
}

// A peer's name as an install may know it: absent, or up to the field's 63 bytes of UTF-8.
const peerName = fc.option(
  fc.string({ minLength: 1, maxLength: 63 }).filter((s) => Buffer.byteLength(s) <= 63),
  { nil: undefined },
);

const mirror = fc.option(
  fc
    .tuple(fc.constantFrom<1 | 2>(1, 2), peerName, peerName, peerName)
    .map(([member, serial, wwn, path]) => ({
      member,
      peer: {
        ...(serial ? { serial } : {}),
        ...(wwn ? { wwn } : {}),
        ...(path ? { path } : {}),
      },
    })),
  { nil: undefined },
);

describe("the claim's writer and reader, fuzzed", () => {
  it("reads back what it wrote, a mirror member or not", () => {
    fc.assert(
      fc.property(mirror, fc.boolean(), fc.nat(), (m, complete, generation) => {
        const c: Claim = { ...claim, complete, generation, ...(m ? { mirror: m } : {}) };
        const decoded = decodeClaim(encodeClaim(c));
        expect(decoded).toEqual(c);
        expect(decoded && summarizeClaim(decoded).mirror).toEqual(m && { ...m, of: 2 });
      }),
      fuzzParameters(),
    );
  });
});

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
    const copy = fc.oneof(mutated(encodeClaim(claim)), mutated(encodeClaim(member)));
    fc.assert(
      fc.property(copy, (bytes) => {
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
    const copy = fc.oneof(
      sealed,
      mutated(encodeClaim(claim)),
      fc.constant(encodeClaim(claim)),
      fc.constant(encodeClaim(member)),
    );
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
