// system_disk: which disk of the machine the installer puts the system on.
import type { Check } from "./check.ts";
import { readSize } from "./check-size.ts";
import { SELECTOR_KEYS, SELECTOR_PATTERN_KEYS, SELECTOR_SIZE_KEYS } from "./keys.ts";
import type { KeyPath } from "./locate.ts";
import { isTable, quoted, type TomlTable } from "./toml-values.ts";
import type { DiskSelector } from "./types.ts";

/** The selector, or null after reporting what is wrong with it. */
export function readDiskSelector(
  ck: Check,
  machine: TomlTable,
  machinePath: KeyPath,
): DiskSelector | null {
  const path = [...machinePath, "system_disk"];
  const value = machine.system_disk;
  if (!isTable(value)) {
    ck.wrongType(
      path,
      value,
      "system_disk",
      "a table",
      'write system_disk = { serial = "S4EVNX0N123456" }',
    );
    return null;
  }
  ck.unknownKeys(value, path, SELECTOR_KEYS, "in system_disk");
  if (Object.keys(value).length === 0) {
    ck.error(
      ck.valuePos(path),
      "system_disk is empty",
      `give at least one of ${SELECTOR_KEYS.join(", ")}, or leave system_disk out`,
    );
    return null;
  }
  const selector: { -readonly [K in keyof DiskSelector]: DiskSelector[K] } = {};
  let ok = true;
  for (const key of SELECTOR_PATTERN_KEYS) {
    const pattern = readPattern(ck, value, path, key);
    if (pattern === null) ok = false;
    else if (pattern !== undefined) selector[key] = pattern;
  }
  for (const key of SELECTOR_SIZE_KEYS) {
    if (value[key] === undefined) continue;
    const size = readSize(ck, [...path, key], value[key], {
      label: `system_disk.${key}`,
      rest: false,
      partition: false,
    });
    if (typeof size === "number") selector[key] = size;
    else ok = false;
  }
  if (value.mirror !== undefined) {
    if (typeof value.mirror === "boolean") selector.mirror = value.mirror;
    else {
      ck.wrongType(
        [...path, "mirror"],
        value.mirror,
        "system_disk.mirror",
        "true or false",
        "write mirror = true",
      );
      ok = false;
    }
  }
  const { min_size, max_size } = selector;
  if (typeof min_size === "number" && typeof max_size === "number" && min_size > max_size) {
    const shown = (key: string) => quoted(value[key], ck.raw([...path, key]));
    ck.error(
      ck.valuePos([...path, "min_size"]),
      `system_disk.min_size ${shown("min_size")} is larger than max_size ${shown("max_size")}`,
      "no disk can match; lower min_size or raise max_size",
    );
    ok = false;
  }
  if (typeof selector.path === "string") {
    ck.warn(
      ck.valuePos([...path, "path"]),
      `system_disk.path ${JSON.stringify(selector.path)} selects the disk by device path`,
      "device paths are not stable across boots; prefer serial or wwn",
    );
  }
  return ok ? selector : null;
}

/** A glob string, undefined when absent, null after reporting a problem. */
function readPattern(
  ck: Check,
  selector: TomlTable,
  path: KeyPath,
  key: string,
): string | undefined | null {
  const value = selector[key];
  if (value === undefined) return undefined;
  if (typeof value !== "string") {
    ck.wrongType(
      [...path, key],
      value,
      `system_disk.${key}`,
      "a string",
      `quote it; a pattern may use * and ?, e.g. ${key} = "ABC*"`,
    );
    return null;
  }
  if (value === "") {
    ck.error(
      ck.valuePos([...path, key]),
      `system_disk.${key} is empty`,
      'give a pattern, e.g. "ABC*", or leave the key out',
    );
    return null;
  }
  return value;
}
