// A value from the SMBIOS tables (/sys/class/dmi/id, dmidecode), or null where the
// firmware wrote a placeholder instead of one.

/** Placeholders firmware writes where a value belongs. */
const PLACEHOLDER =
  /^(|-|none|n\/a|not specified|not settable|not present|not applicable|default string|to be filled by o\.e\.m\.|system serial number|[0-]+|ffffffff-ffff-ffff-ffff-ffffffffffff|03000200-0400-0500-0006-000700080009)$/i;

export function smbiosValue(s: string | undefined | null): string | null {
  const v = (s ?? "").trim();
  return PLACEHOLDER.test(v) ? null : v;
}
