// The size rules, shared by [layout], [[storage]] and system_disk.
import { MIB } from "../common/size.ts";
import type { Check } from "./check.ts";
import type { KeyPath } from "./locate.ts";
import { formatSize, isOversize, nearestSizeSpelling, parseSize, roundUpToMiB } from "./size.ts";
import { isInteger, isTable, quoted } from "./toml-values.ts";

export interface SizeRule {
  /** How the message names the key: "layout.slot", "storage.size". */
  readonly label: string;
  /** Whether "rest" is allowed (storage roles only). */
  readonly rest: boolean;
  readonly minimum?: number;
  /** A partition size, which the planner rounds up to whole MiB. */
  readonly partition: boolean;
}

const SIZE_FORMS =
  'write a whole number and a unit, B, KiB, MiB, GiB or TiB, e.g. "2GiB", or an integer of bytes';

/** The size in bytes (or "rest"), undefined after reporting why the value is not one. */
export function readSize(
  ck: Check,
  path: KeyPath,
  value: unknown,
  rule: SizeRule,
): number | "rest" | undefined {
  const raw = ck.raw(path);
  const forms = rule.rest ? `${SIZE_FORMS}, or "rest"` : SIZE_FORMS;
  if (Array.isArray(value) || isTable(value)) {
    ck.wrongType(path, value, rule.label, "a size", forms);
    return undefined;
  }
  const shown = `${rule.label} ${quoted(value, raw)}`;
  const pos = ck.valuePos(path);
  const float = typeof value === "number" && !isInteger(value, raw);
  if (!float && (isOversize(value) || writtenOversize(raw))) {
    ck.error(pos, `${shown} is too large`, 'a size must be below "8192TiB", which is 2^53 bytes');
    return undefined;
  }
  const size = float ? undefined : parseSize(value);
  if (size === undefined) {
    const guess = typeof value === "string" ? nearestSizeSpelling(value) : undefined;
    const hint = guess === undefined ? forms : `did you mean ${JSON.stringify(guess)}? ${forms}`;
    ck.error(pos, `${shown} is not a size`, hint);
    return undefined;
  }
  if (size === "rest") {
    if (rule.rest) return size;
    ck.error(
      pos,
      `${shown} is not allowed here`,
      `"rest" is only for a [[storage]] size; ${SIZE_FORMS}`,
    );
    return undefined;
  }
  // A size given as a bare integer is bytes: say so, so that `size = 20` reads as 20 bytes.
  const inBytes = typeof value === "number" || typeof value === "bigint";
  const sized = inBytes ? `${rule.label} ${bytesOf(size)}` : shown;
  if (rule.minimum !== undefined && size < rule.minimum) {
    const least = JSON.stringify(formatSize(rule.minimum));
    ck.error(
      pos,
      `${sized} is too small`,
      `${rule.label} must be at least ${least}${inBytes ? `, ${rule.minimum} bytes` : ""}`,
    );
    return undefined;
  }
  if (rule.partition && size % MIB !== 0) {
    const rounded = JSON.stringify(formatSize(roundUpToMiB(size)));
    ck.warn(pos, `${sized} is not a multiple of 1MiB`, `it will be rounded up to ${rounded}`);
  }
  return size;
}

/** `1048576 bytes (1MiB)`, or `20 bytes` where no larger unit divides it. */
function bytesOf(size: number): string {
  const unit = formatSize(size);
  return unit === `${size}B` ? `${size} bytes` : `${size} bytes (${unit})`;
}

/**
 * The TOML parser wraps integers beyond 64 bits around to negative ones, so a byte count
 * that large is judged by how it is written.
 */
function writtenOversize(raw: string | undefined): boolean {
  if (raw === undefined || !/^\+?[0-9][0-9_]*$/.test(raw)) return false;
  return BigInt(raw.replaceAll("_", "")) > BigInt(Number.MAX_SAFE_INTEGER);
}
