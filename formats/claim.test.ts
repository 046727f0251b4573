import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  CLAIM_SIZE,
  type Claim,
  claimTailOffset,
  decodeClaim,
  encodeClaim,
  judgeClaim,
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
