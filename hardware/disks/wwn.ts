// One WWN, however it is written: udev and `disks` write an NAA name `0x5000c500…`, the
// kernel's wwid files `naa.5000c500…` and an NVMe namespace's `eui.0025…`, and people copy
// either, in either case.

const PREFIX = /^(0x|naa\.|eui\.)/i;

/**
 * The WWN as compared: lowercase, without its `0x`, `naa.` or `eui.` prefix. Undefined
 * when it is empty or all zeros, which some bridges and firmwares report for every disk:
 * such a WWN tells no two disks apart.
 */
export function wwnKey(wwn: string | undefined): string | undefined {
  const key = wwn?.trim().replace(PREFIX, "").toLowerCase();
  if (!key || /^[0:.-]*$/.test(key)) return undefined;
  return key;
}

/** A selector's WWN pattern as compared: its prefix too is optional. */
export function wwnPattern(pattern: string): string {
  return pattern.trim().replace(PREFIX, "");
}
