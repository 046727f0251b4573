// Property-based tests over untrusted bytes (a disk's tables, a claim, the crash journal,
// a release's files, EFI variables). The suite runs a fixed seed, so a failure reproduces;
// `npm run fuzz` runs many more cases from a fresh seed, which it prints
// (LIKEN_FUZZ_RUNS and LIKEN_FUZZ_SEED set them; docs/disks.md, "Untrusted bytes").
import fc from "fast-check";
import { expect } from "vitest";

/** The seed the suite runs with: a failure in CI is the same failure on a laptop. */
export const SUITE_SEED = 46;

/** fast-check's parameters for one property: `runs` cases in the suite, more under `npm run fuzz`. */
export function fuzzParameters<T>(runs = 300): fc.Parameters<T> {
  const scaled = Number(process.env.LIKEN_FUZZ_RUNS ?? "");
  const seed = Number(process.env.LIKEN_FUZZ_SEED ?? "");
  return {
    seed: Number.isInteger(seed) && process.env.LIKEN_FUZZ_SEED ? seed : SUITE_SEED,
    numRuns: Number.isInteger(scaled) && scaled > 0 ? scaled : runs,
  };
}

/**
 * `bytes` with `count` of its bytes replaced (positions and values from fast-check), so a
 * valid structure is damaged a little: most mutations land where a reader must judge.
 */
export function mutated(bytes: Uint8Array, maxChanges = 8): fc.Arbitrary<Buffer> {
  return fc
    .array(
      fc.record({
        at: fc.integer({ min: 0, max: Math.max(0, bytes.length - 1) }),
        value: fc.integer({ min: 0, max: 255 }),
      }),
      { minLength: 1, maxLength: maxChanges },
    )
    .map((changes) => {
      const copy = Buffer.from(bytes);
      for (const c of changes) if (c.at < copy.length) copy[c.at] = c.value;
      return copy;
    });
}

/**
 * `bytes` placed inside a larger buffer whose other bytes are `guard`: a reader that gives
 * the same answer for both guards read nothing outside the bytes it was given.
 */
export function guarded(bytes: Uint8Array, guard: number): Buffer {
  const whole = Buffer.alloc(bytes.length + 8192, guard);
  Buffer.from(bytes).copy(whole, 4096);
  return whole.subarray(4096, 4096 + bytes.length);
}

/**
 * What `read` makes of `bytes`: its value, or the error it threw when that error is one
 * of `typed` (a reader's own refusal). Anything else it throws fails the test, and so does
 * an answer that changes with the bytes around the input (a read outside it).
 */
export function readsWithin<T>(
  read: (bytes: Buffer) => T,
  bytes: Uint8Array,
  typed: readonly (abstract new (...args: never[]) => Error)[] = [],
): T | Error {
  const outcome = (b: Buffer): T | Error => {
    try {
      return read(b);
    } catch (error) {
      if (typed.some((t) => error instanceof t)) return error as Error;
      throw error;
    }
  };
  const low = outcome(guarded(bytes, 0x00));
  const high = outcome(guarded(bytes, 0xff));
  expect(comparable(high)).toEqual(comparable(low));
  return low;
}

// Errors compare by class and message (toEqual on two Error objects ignores their class).
function comparable(value: unknown): unknown {
  return value instanceof Error ? { error: value.constructor.name, message: value.message } : value;
}
