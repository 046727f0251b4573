// systemd's number parsing, as net_id uses it (systemd-stable v252.31,
// src/basic/parse-util.c): the same text must give the same number, or the same refusal,
// or a name differs. Pure.

const WHITESPACE = /^[ \t\n\r]*/;

/**
 * safe_atou_full(): an unsigned number, or null. `base` 0 is C's strtoul base 0 ("0x" hex,
 * a leading "0" octal) after systemd's "0b"/"0o" prefixes; leading whitespace and "+" are
 * allowed, "-" is refused (unless the value is 0), and nothing may follow.
 */
export function safeAtou(text: string, base = 0, max = 0xffff_ffff): number | null {
  let s = text.replace(WHITESPACE, "");
  let b = base;
  if (b === 0) {
    const prefix = s.slice(0, 2).toLowerCase();
    if (prefix === "0b") {
      b = 2;
      s = s.slice(2);
    } else if (prefix === "0o") {
      b = 8;
      s = s.slice(2);
    }
  }
  const value = strtoul(s, b);
  if (value === null) return null;
  if (value !== 0n && s.startsWith("-")) return null;
  if (value > BigInt(max)) return null;
  return Number(value);
}

// strtoul() that must consume the whole string: an optional sign, then digits of `base`
// (0: detect). Returns the magnitude (the caller refuses a negative one).
function strtoul(text: string, base: number): bigint | null {
  let s = text.replace(WHITESPACE, "");
  if (s.startsWith("+") || s.startsWith("-")) s = s.slice(1);
  let b = base;
  if ((b === 0 || b === 16) && /^0[xX][0-9a-fA-F]/.test(s)) {
    s = s.slice(2);
    b = 16;
  } else if (b === 0) b = s.startsWith("0") ? 8 : 10;
  if (s === "") return null;
  let value = 0n;
  for (const c of s.toLowerCase()) {
    const digit = Number.parseInt(c, 36);
    if (Number.isNaN(digit) || digit >= b) return null;
    value = value * BigInt(b) + BigInt(digit);
    if (value > 0xffff_ffff_ffff_ffffn) return null; // ERANGE
  }
  return value;
}

/** safe_atoi(): a signed int, or null. */
export function safeAtoi(text: string): number | null {
  const s = text.replace(WHITESPACE, "");
  const negative = s.startsWith("-");
  const magnitude = strtoul(s, 0);
  if (magnitude === null) return null;
  const value = negative ? -magnitude : magnitude;
  if (value < -0x8000_0000n || value > 0x7fff_ffffn) return null;
  return Number(value);
}

/** sscanf("%x"), at most `width` characters: a hex number at the start of `s`, and the rest. */
export function scanHex(s: string, width = Number.POSITIVE_INFINITY): [number, string] | null {
  const start = s.length - s.trimStart().length;
  const end = Math.min(s.length, start + width);
  let i = start;
  if (end - i >= 3 && s[i] === "0" && (s[i + 1] === "x" || s[i + 1] === "X")) {
    if (isHex(s[i + 2])) i += 2;
  }
  const digits = i;
  while (i < end && isHex(s[i])) i++;
  if (i === digits) return null;
  return [Number.parseInt(s.slice(digits, i), 16), s.slice(i)];
}

function isHex(c: string | undefined): boolean {
  return c !== undefined && /^[0-9a-fA-F]$/.test(c);
}

/** sscanf("%u"): a decimal number at the start of `s`. */
export function scanDec(s: string): [number, string] | null {
  const m = /^\s*\+?(\d+)/.exec(s);
  if (!m) return null;
  return [Number(m[1]), s.slice(m[0].length)];
}

/**
 * ifname_valid() (src/basic/socket-util.c): whether udev may give this name to an
 * interface: 1 to 15 printable ASCII characters, no ':', '/' or '%', not ".", "..", "all",
 * "default", and not all digits.
 */
export function ifnameValid(name: string | null): name is string {
  if (name === null || name === "" || name.length >= 16) return false;
  if ([".", "..", "all", "default"].includes(name)) return false;
  for (const c of name) {
    const code = c.charCodeAt(0);
    if (code <= 32 || code >= 127 || ":/%".includes(c)) return false;
  }
  return !/^\d+$/.test(name);
}
