import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { SUITE_SEED } from "../test/fuzz.ts";
import { LAYOUT_DEFAULTS, MINIMUMS, parseSize } from "./index.ts";
import { formatSize } from "./size.ts";

const UNITS = { B: 1, KiB: 1024, MiB: 1024 ** 2, GiB: 1024 ** 3, TiB: 1024 ** 4 } as const;
const unit = fc.constantFrom(...(Object.keys(UNITS) as (keyof typeof UNITS)[]));

describe("parseSize", () => {
  it("reads every whole number with every unit as its byte count", () => {
    fc.assert(
      fc.property(fc.nat({ max: 8191 }), unit, (n, u) => {
        expect(parseSize(`${n}${u}`)).toBe(n * UNITS[u]);
      }),
      { seed: SUITE_SEED },
    );
  });

  it("reads every whole number below 2^53 with every unit that keeps it exact", () => {
    fc.assert(
      fc.property(fc.maxSafeNat(), unit, (n, u) => {
        const bytes = n * UNITS[u];
        expect(parseSize(`${n}${u}`)).toBe(Number.isSafeInteger(bytes) ? bytes : undefined);
      }),
      { seed: SUITE_SEED },
    );
  });

  it("reads non-negative integers as bytes", () => {
    fc.assert(
      fc.property(fc.maxSafeNat(), (n) => {
        expect(parseSize(n)).toBe(n);
      }),
      { seed: SUITE_SEED },
    );
    expect(parseSize(2n ** 40n)).toBe(2 ** 40);
  });

  it("round-trips through formatSize", () => {
    fc.assert(
      fc.property(fc.maxSafeNat(), (n) => {
        expect(parseSize(formatSize(n))).toBe(n);
      }),
      { seed: SUITE_SEED },
    );
  });

  it("keeps rest", () => {
    expect(parseSize("rest")).toBe("rest");
  });

  it.each([
    "2GB",
    "1.5GiB",
    "-1",
    "-1GiB",
    "lots",
    "",
    "512",
    "512 MiB",
    " 512MiB",
    "512mib",
    "0x10MiB",
    "01MiB",
    "1e3MiB",
    "REST",
    "Infinity",
  ])("refuses the string %j", (value) => {
    expect(parseSize(value)).toBeUndefined();
  });

  it.each([
    -1,
    1.5,
    Number.NaN,
    Number.POSITIVE_INFINITY,
    2 ** 53,
    -1n,
    2n ** 64n,
    true,
    null,
    undefined,
    {},
    ["1MiB"],
  ])("refuses %s", (value) => {
    expect(parseSize(value)).toBeUndefined();
  });

  it("refuses strings that do not have the form", () => {
    const form = /^(0|[1-9][0-9]*)(B|KiB|MiB|GiB|TiB)$/;
    fc.assert(
      fc.property(
        fc.string().filter((s) => !form.test(s) && s !== "rest"),
        (s) => {
          expect(parseSize(s)).toBeUndefined();
        },
      ),
      { seed: SUITE_SEED },
    );
  });

  it("refuses a number with junk around it", () => {
    fc.assert(
      fc.property(
        fc.nat(),
        unit,
        fc.constantFrom(" ", "+", "-", ".0", "i", "b", "s", "\n"),
        (n, u, junk) => {
          expect(parseSize(`${junk}${n}${u}`)).toBeUndefined();
          expect(parseSize(`${n}${u}${junk}`)).toBeUndefined();
        },
      ),
      { seed: SUITE_SEED },
    );
  });
});

describe("layout constants", () => {
  it("holds the documented defaults and minimums", () => {
    expect(LAYOUT_DEFAULTS).toEqual({
      esp: 512 * 2 ** 20,
      slot: 2 * 2 ** 30,
      crash_journal: 64 * 2 ** 20,
      state: 2 ** 30,
    });
    expect(MINIMUMS).toEqual({
      esp: 256 * 2 ** 20,
      slot: 256 * 2 ** 20,
      crash_journal: 8 * 2 ** 20,
      state: 64 * 2 ** 20,
      storage_role: 64 * 2 ** 20,
    });
    for (const key of Object.keys(LAYOUT_DEFAULTS) as (keyof typeof LAYOUT_DEFAULTS)[]) {
      expect(LAYOUT_DEFAULTS[key]).toBeGreaterThanOrEqual(MINIMUMS[key]);
    }
  });
});
