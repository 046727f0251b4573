import { crc32 } from "node:zlib";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { SUITE_SEED } from "../test/fuzz.ts";
import {
  CLAIM_SIZE,
  type Claim,
  claimTailOffset,
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
  complete: false,
  createdAt: 1_764_547_200,
  generation: 1,
};

describe("the claim", () => {
  it("is one sector that decodes to what was encoded", () => {
    const bytes = encodeClaim(claim);
    expect(bytes.length).toBe(CLAIM_SIZE);
    expect(bytes.toString("ascii", 0, 8)).toBe("LIKENCLM");
    expect(decodeClaim(bytes)).toEqual(claim);
  });

  it("round-trips any names and flags", () => {
    const text = fc
      .string({ minLength: 0, maxLength: 63 })
      .filter((s) => Buffer.byteLength(s) <= 63);
    fc.assert(
      fc.property(
        text,
        text,
        fc.uuid(),
        fc.boolean(),
        fc.nat(),
        (cluster, machine, installId, complete, generation) => {
          const c = { ...claim, cluster, machine, installId, complete, generation };
          expect(decodeClaim(encodeClaim(c))).toEqual(c);
        },
      ),
      { seed: SUITE_SEED },
    );
  });

  it("does not verify when any byte changes", () => {
    const bytes = encodeClaim(claim);
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: CLAIM_SIZE - 1 }),
        fc.integer({ min: 1, max: 255 }),
        (at, flip) => {
          const damaged = Buffer.from(bytes);
          damaged[at] = (damaged[at] as number) ^ flip;
          expect(decodeClaim(damaged)).toBeUndefined();
        },
      ),
      { seed: SUITE_SEED },
    );
  });

  it("survives a torn copy: one good copy is enough", () => {
    const good = encodeClaim(claim);
    const torn = Buffer.concat([good.subarray(0, 200), Buffer.alloc(CLAIM_SIZE - 200)]);
    expect(judgeClaim(torn, good)).toEqual({ state: "valid", claim, copies: 1 });
    expect(judgeClaim(good, Buffer.alloc(CLAIM_SIZE))).toEqual({
      state: "valid",
      claim,
      copies: 1,
    });
    expect(judgeClaim(Buffer.alloc(CLAIM_SIZE), Buffer.alloc(CLAIM_SIZE))).toEqual({
      state: "none",
    });
  });

  it("takes the newer generation when both copies verify", () => {
    const done = { ...claim, complete: true, generation: 2 };
    expect(judgeClaim(encodeClaim(claim), encodeClaim(done))).toEqual({
      state: "valid",
      claim: done,
      copies: 2,
    });
  });

  it("calls two copies of different installs a conflict", () => {
    const other = { ...claim, installId: "11111111-2222-4333-8444-555555555555" };
    expect(judgeClaim(encodeClaim(claim), encodeClaim(other))).toEqual({ state: "conflict" });
  });

  it("puts the tail copy in the last MiB, clear of the backup GPT", () => {
    const MIB = 1024 * 1024;
    expect(claimTailOffset(8 * 1024 * MIB)).toBe(8 * 1024 * MIB - MIB / 2);
    // a size that is not a whole number of MiB: the copy stays before the backup GPT's 16.5 KiB
    const odd = 8 * 1024 * MIB + 100 * 1024;
    expect(claimTailOffset(odd) + CLAIM_SIZE).toBeLessThan(odd - 33 * 512);
  });
});

describe("a mirror member's claim", () => {
  const member: Claim = {
    ...claim,
    mirror: {
      member: 2,
      peer: { serial: "S4EVNX0N123456", wwn: "0x5002538e4a8b1234", path: "/dev/sda" },
    },
  };

  // The copy with `at` set to `value` and its checksum made right again: what a writer
  // other than liken could leave.
  function resealed(bytes: Buffer, at: number, value: number): Buffer {
    const b = Buffer.from(bytes);
    b[at] = value;
    b.writeUInt32LE(crc32(b.subarray(0, CLAIM_SIZE - 4)), CLAIM_SIZE - 4);
    return b;
  }

  it("decodes to what was encoded, in format version 1", () => {
    const bytes = encodeClaim(member);
    expect(bytes.readUInt32LE(8)).toBe(1);
    expect(decodeClaim(bytes)).toEqual(member);
  });

  it("holds the member at byte 33, the count at 34 and the peer's names at 256, 320 and 384", () => {
    const bytes = encodeClaim(member);
    expect([bytes[33], bytes[34]]).toEqual([2, 2]);
    const text = (at: number) => bytes.toString("utf8", at + 1, at + 1 + (bytes[at] as number));
    expect([text(256), text(320), text(384)]).toEqual([
      "S4EVNX0N123456",
      "0x5002538e4a8b1234",
      "/dev/sda",
    ]);
    expect(bytes.subarray(448, 508).every((x) => x === 0)).toBe(true);
  });

  it("leaves those bytes zero on a disk that is not mirrored, as before mirrors", () => {
    const bytes = encodeClaim(claim);
    expect([bytes[33], bytes[34]]).toEqual([0, 0]);
    expect(bytes.subarray(256, 508).every((x) => x === 0)).toBe(true);
    expect(decodeClaim(bytes)).not.toHaveProperty("mirror");
  });

  it("names a peer the install knew only by its path", () => {
    const byPath: Claim = { ...claim, mirror: { member: 1, peer: { path: "/dev/vdb" } } };
    expect(decodeClaim(encodeClaim(byPath))).toEqual(byPath);
  });

  it("is not a claim liken wrote when its member or count is one liken never writes", () => {
    const bytes = encodeClaim(member);
    for (const [at, value] of [
      [33, 3],
      [33, 255],
      [34, 0],
      [34, 1],
      [34, 3],
    ] as const) {
      expect(decodeClaim(resealed(bytes, at, value)), `byte ${at} = ${value}`).toBeUndefined();
    }
    expect(decodeClaim(resealed(bytes, 33, 1))?.mirror?.member).toBe(1);
  });

  it("refuses to encode a peer's name longer than 63 bytes, as every text field", () => {
    const long = {
      ...member,
      mirror: { member: 1 as const, peer: { path: `/dev/${"x".repeat(59)}` } },
    };
    expect(() => encodeClaim(long)).toThrow(RangeError);
  });

  it("is summarized with its place, the mirror's size and the peer; a plain claim with none", () => {
    expect(summarizeClaim(member).mirror).toEqual({
      member: 2,
      of: 2,
      peer: { serial: "S4EVNX0N123456", wwn: "0x5002538e4a8b1234", path: "/dev/sda" },
    });
    expect(summarizeClaim(claim)).not.toHaveProperty("mirror");
  });
});
