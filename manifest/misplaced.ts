// Advice for a key that is unknown where it is but known elsewhere. In TOML every key
// after a [header] belongs to that table, so a key that is written a few lines too low,
// or under a missing header, lands in the wrong table.
import {
  ENCRYPTION_KEYS,
  INTERFACE_KEYS,
  LAYOUT_KEYS,
  MACHINE_KEYS,
  RELEASE_KEYS,
  SECURE_BOOT_KEYS,
  SELECTOR_KEYS,
  STORAGE_KEYS,
} from "./keys.ts";

const HOMES: readonly (readonly [readonly string[], string])[] = [
  [RELEASE_KEYS, "[release]"],
  [LAYOUT_KEYS, "[layout]"],
  [MACHINE_KEYS, "a [[machines]] table"],
  [STORAGE_KEYS, "a [[storage]] table"],
  [SELECTOR_KEYS, "a system_disk table"],
  [SECURE_BOOT_KEYS, "[secure_boot]"],
  [ENCRYPTION_KEYS, "[encryption]"],
  [INTERFACE_KEYS, "a [[machines.interfaces]] table"],
];

/** `where` is how messages name the table the key is in: "in [layout]", "at the top level". */
export function misplacedAdvice(key: string, where: string): string | undefined {
  if (key === "cluster" && where !== TOP_LEVEL) {
    return "cluster is a top-level key: move it above the first table header";
  }
  // A machine's key written after its first [[machines.interfaces]] lands in that interface.
  if (where === IN_INTERFACE && (MACHINE_KEYS as readonly string[]).includes(key)) {
    return `${JSON.stringify(key)} is a key of the machine: move it above the machine's first [[machines.interfaces]]`;
  }
  for (const [keys, home] of HOMES) {
    if (keys.includes(key)) return `${JSON.stringify(key)} belongs in ${home}`;
  }
  return undefined;
}

export const TOP_LEVEL = "at the top level";
export const IN_INTERFACE = "in [[machines.interfaces]]";
