// Byte counts as people write them: binary units, whole numbers. The one definition of
// each unit: everything that counts in KiB, MiB or GiB imports it from here.

export const KIB = 1024;
export const MIB = 1024 * KIB;
export const GIB = 1024 * MIB;
export const TIB = 1024 * GIB;

const UNITS = ["B", "KiB", "MiB", "GiB", "TiB"] as const;

/** 536870912 → "512MiB"; 1.5 GiB → "1536MiB"; uses the largest unit that divides exactly. */
export function formatSize(bytes: number): string {
  let unit = 0;
  let n = bytes;
  while (unit < UNITS.length - 1 && n >= 1024 && n % 1024 === 0) {
    n /= 1024;
    unit++;
  }
  return `${n}${UNITS[unit]}`;
}

/** 8053063680 → "7.5 GiB": short and approximate, for tables. */
export function formatSizeShort(bytes: number): string {
  let unit = 0;
  let n = bytes;
  while (unit < UNITS.length - 1 && n >= 1024) {
    n /= 1024;
    unit++;
  }
  const digits = unit === 0 || n >= 100 ? 0 : 1;
  return `${n.toFixed(digits).replace(/\.0$/, "")} ${UNITS[unit]}`;
}
