// Sizes as the manifest writes them: "<whole number><binary unit>" or an integer of bytes.
// Decimal units (GB) and fractions are refused rather than guessed, because a partition
// that is 7% smaller than the operator meant is found only when it fills up.

import { GIB, KIB, MIB, TIB } from "../common/size.ts";

export const SIZE_UNITS: Readonly<Record<string, number>> = Object.freeze({
  B: 1,
  KiB: KIB,
  MiB: MIB,
  GiB: GIB,
  TiB: TIB,
});

const SIZE_FORM = /^(0|[1-9][0-9]*)(B|KiB|MiB|GiB|TiB)$/;

/** Default sizes of the system partitions, in bytes. */
export const LAYOUT_DEFAULTS = Object.freeze({
  esp: 512 * MIB,
  slot: 2 * GIB,
  crash_journal: 64 * MIB,
  state: 1 * GIB,
});

/** The smallest sizes the installer accepts, in bytes. */
export const MINIMUMS = Object.freeze({
  esp: 256 * MIB,
  slot: 256 * MIB,
  crash_journal: 8 * MIB,
  state: 64 * MIB,
  storage_role: 64 * MIB,
});

/**
 * Bytes for a manifest size, "rest" for "rest", undefined when the value is not a size.
 * Sizes stay below 2^53 so that every byte count is exact.
 */
export function parseSize(value: unknown): number | "rest" | undefined {
  if (typeof value === "number") {
    return Number.isSafeInteger(value) && value >= 0 ? value : undefined;
  }
  if (typeof value === "bigint") {
    return value >= 0n && value <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(value) : undefined;
  }
  if (typeof value !== "string") return undefined;
  if (value === "rest") return "rest";
  const match = SIZE_FORM.exec(value);
  if (!match) return undefined;
  const bytes = Number(match[1]) * (SIZE_UNITS[match[2] as string] as number);
  return Number.isSafeInteger(bytes) ? bytes : undefined;
}

/** True when the value has the form of a size but too many bytes to count exactly. */
export function isOversize(value: unknown): boolean {
  if (typeof value === "bigint") return value > BigInt(Number.MAX_SAFE_INTEGER);
  if (typeof value === "number") return Number.isInteger(value) && value > Number.MAX_SAFE_INTEGER;
  return typeof value === "string" && SIZE_FORM.test(value) && parseSize(value) === undefined;
}

export { formatSize } from "../common/size.ts";

export function roundUpToMiB(bytes: number): number {
  return Math.ceil(bytes / MIB) * MIB;
}

const NEAR_UNITS: Readonly<Record<string, string>> = {
  b: "B",
  k: "KiB",
  kb: "KiB",
  kib: "KiB",
  m: "MiB",
  mb: "MiB",
  mib: "MiB",
  g: "GiB",
  gb: "GiB",
  gib: "GiB",
  t: "TiB",
  tb: "TiB",
  tib: "TiB",
};

/**
 * The binary-unit spelling an operator most likely meant ("2GB" -> "2GiB", "512 mib" ->
 * "512MiB"), or undefined. Only whole numbers: a fraction has no exact spelling to offer.
 */
export function nearestSizeSpelling(value: string): string | undefined {
  const match = /^\s*([0-9]+)\s*([A-Za-z]+)\s*$/.exec(value);
  if (!match) return undefined;
  const unit = NEAR_UNITS[(match[2] as string).toLowerCase()];
  if (unit === undefined) return undefined;
  const spelled = `${BigInt(match[1] as string)}${unit}`;
  return spelled !== value && parseSize(spelled) !== undefined ? spelled : undefined;
}
