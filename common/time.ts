// The one way a time is written in every document and every --json output: RFC 3339 in
// UTC to the second (`2026-12-01T04:41:07Z`), so a program reads every time one way and
// two documents written in the same second compare equal as text.

/** A time as every document spells it: `2026-12-01T04:41:07Z`. */
export function rfc3339(time: Date): string {
  return time.toISOString().replace(/\.\d{3}Z$/, "Z");
}

/** Seconds since the epoch (as the claim stores them) as every document spells a time. */
export function rfc3339FromSeconds(seconds: number): string {
  return rfc3339(new Date(seconds * 1000));
}
