// The SMBIOS facts the stick shows and matches machines by, from /sys/class/dmi/id (the
// kernel's copy of the tables dmidecode reads), or from the device tree of a machine without
// SMBIOS, and the one rule for a value the firmware left as a placeholder. The hardware report, the menu and the unattended install's machine
// matching all read them here, so none shows "To be filled by O.E.M." as a name.
import { readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { orNull } from "../common/or-null.ts";

/** The kernel's SMBIOS folder, relative to the root ("/", or a test's tree). */
export const SMBIOS_DIR = "sys/class/dmi/id";

/** The fields liken reads, as the kernel names them (serials and the UUID: root only). */
const SMBIOS_FIELDS = [
  "sys_vendor",
  "product_name",
  "product_serial",
  "product_uuid",
  "board_vendor",
  "board_name",
  "board_serial",
  "bios_vendor",
  "bios_version",
  "bios_date",
] as const;

/** Each field as the firmware wrote it, trimmed; undefined where it cannot be read. */
export type SmbiosFields = Record<(typeof SMBIOS_FIELDS)[number], string | undefined>;

/**
 * The fields in `dir` (the kernel's folder, or a test's); null where there is none (no
 * SMBIOS). Synchronous: sysfs answers from memory, and through the thread pool each read
 * cost a millisecond under emulation.
 */
export function readSmbios(dir: string): SmbiosFields | null {
  if (statSync(dir, { throwIfNoEntry: false }) === undefined) return null;
  const values = SMBIOS_FIELDS.map(
    (f) => orNull(() => readFileSync(join(dir, f), "utf8"))?.trim() ?? undefined,
  );
  return Object.fromEntries(SMBIOS_FIELDS.map((f, i) => [f, values[i]])) as SmbiosFields;
}

/** The device tree's root node, relative to the root ("/", or a test's tree). */
export const DEVICE_TREE_DIR = "sys/firmware/devicetree/base";

/**
 * The machine's system facts under `root`: its SMBIOS, or, on a machine without SMBIOS (an
 * Arm board booted from a device tree; SBSA servers and QEMU's virt under AAVMF have
 * SMBIOS), what its device tree says in SMBIOS's names; null where neither is.
 */
export function readSystemFacts(root: string): SmbiosFields | null {
  return readSmbios(join(root, SMBIOS_DIR)) ?? readDeviceTree(join(root, DEVICE_TREE_DIR));
}

/**
 * The root node's `model` as the product, the vendor prefix of its first `compatible`
 * (`raspberrypi` of `raspberrypi,4-model-b`) as the vendor, and its `serial-number`; null
 * without a model. Its properties are NUL-terminated strings, `compatible` a list of them.
 */
export function readDeviceTree(dir: string): SmbiosFields | null {
  const property = (name: string) =>
    orNull(() => readFileSync(join(dir, name), "latin1"))?.split("\0") ?? [];
  const model = property("model")[0]?.trim();
  if (!model) return null;
  const vendor = property("compatible")[0]?.split(",")[0]?.trim();
  const none = Object.fromEntries(SMBIOS_FIELDS.map((f) => [f, undefined])) as SmbiosFields;
  return {
    ...none,
    sys_vendor: vendor || undefined,
    product_name: model,
    product_serial: property("serial-number")[0]?.trim() || undefined,
  };
}

/** Placeholders firmware writes where a value belongs. */
const PLACEHOLDER =
  /^(|-|none|n\/a|not specified|not settable|not present|not applicable|default string|to be filled by o\.e\.m\.|system serial number|[0-]+|ffffffff-ffff-ffff-ffff-ffffffffffff|03000200-0400-0500-0006-000700080009)$/i;

/** The value, or null where the firmware wrote a placeholder instead of one. */
export function smbiosValue(s: string | undefined | null): string | null {
  const v = (s ?? "").trim();
  return PLACEHOLDER.test(v) ? null : v;
}
