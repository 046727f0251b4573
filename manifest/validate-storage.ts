// [[storage]]: the partitions for the cluster's data, each labelled liken-<role>.

import { dnsLabelHint, isDnsLabel } from "../common/names.ts";
import {
  partitionLabel,
  STORAGE_ROLE_MAX_LENGTH,
  SYSTEM_PARTITION_NAMES,
} from "../common/partition-labels.ts";
import type { Check } from "./check.ts";
import { readSize } from "./check-size.ts";
import { STORAGE_KEYS } from "./keys.ts";
import { MINIMUMS } from "./size.ts";
import { isTable, type TomlTable } from "./toml-values.ts";
import type { StorageRole } from "./types.ts";

const ARRAY_HINT = "write each storage role as its own [[storage]] table, with double brackets";

export function readStorage(ck: Check, doc: TomlTable): StorageRole[] | undefined {
  const storage = doc.storage;
  if (storage === undefined) return [];
  if (!Array.isArray(storage)) {
    ck.wrongType(["storage"], storage, "storage", "an array of tables", ARRAY_HINT);
    return undefined;
  }
  const roles: StorageRole[] = [];
  const firstLineOf = new Map<string, number>();
  let rest: { role: string | undefined; line: number } | undefined;
  let ok = true;
  storage.forEach((entry: unknown, index) => {
    const path = ["storage", index];
    if (!isTable(entry)) {
      ck.wrongType(path, entry, "each storage entry", "a table", ARRAY_HINT);
      ok = false;
      return;
    }
    ck.unknownKeys(entry, path, STORAGE_KEYS, "in [[storage]]");
    const role = readRoleName(ck, entry, path, firstLineOf);
    const size = readStorageSize(ck, entry, path);
    if (size === "rest") {
      const line = ck.valuePos([...path, "size"]).line;
      if (rest === undefined) rest = { role, line };
      else {
        const first = rest.role === undefined ? "" : ` (${JSON.stringify(rest.role)})`;
        ck.error(
          ck.valuePos([...path, "size"]),
          'a second storage role has size "rest"',
          `only one role can take the rest of the disk; the first${first} is on line ${rest.line}`,
        );
        ok = false;
      }
    }
    if (role === undefined || size === undefined) ok = false;
    else roles.push({ role, size });
  });
  return ok ? roles : undefined;
}

function readRoleName(
  ck: Check,
  entry: TomlTable,
  path: readonly (string | number)[],
  firstLineOf: Map<string, number>,
): string | undefined {
  const role = ck.optionalString(
    entry,
    path,
    "role",
    "storage.role",
    'quote it: role = "containerd"',
  );
  if (!("role" in entry)) {
    ck.error(
      ck.tablePos(path),
      'missing key "role" in [[storage]]',
      `add role = "NAME", a DNS-1123 label of at most ${STORAGE_ROLE_MAX_LENGTH} characters`,
    );
  }
  if (role === undefined) return undefined;
  const pos = ck.valuePos([...path, "role"]);
  const shown = `storage role ${JSON.stringify(role)}`;
  if (!isDnsLabel(role, STORAGE_ROLE_MAX_LENGTH)) {
    const why =
      role.length > STORAGE_ROLE_MAX_LENGTH
        ? `is longer than ${STORAGE_ROLE_MAX_LENGTH} characters`
        : "is not a DNS-1123 label";
    ck.error(
      pos,
      `${shown} ${why}`,
      `${dnsLabelHint(role, STORAGE_ROLE_MAX_LENGTH)}, so that the GPT label liken-<role> fits`,
    );
    return undefined;
  }
  if ((SYSTEM_PARTITION_NAMES as readonly string[]).includes(role)) {
    ck.error(
      pos,
      `${shown} is reserved`,
      `the system partitions use ${SYSTEM_PARTITION_NAMES.join(", ")}; choose another name`,
    );
    return undefined;
  }
  const firstLine = firstLineOf.get(role);
  if (firstLine !== undefined) {
    ck.error(
      pos,
      `duplicate ${shown}`,
      `the first is on line ${firstLine}; each role names one partition, ${partitionLabel(role)}`,
    );
    return undefined;
  }
  firstLineOf.set(role, pos.line);
  return role;
}

function readStorageSize(
  ck: Check,
  entry: TomlTable,
  path: readonly (string | number)[],
): number | "rest" | undefined {
  if (!("size" in entry)) {
    ck.error(
      ck.tablePos(path),
      'missing key "size" in [[storage]]',
      'add size = "20GiB", or size = "rest" for what is left on the disk',
    );
    return undefined;
  }
  return readSize(ck, [...path, "size"], entry.size, {
    label: "storage.size",
    rest: true,
    minimum: MINIMUMS.storage_role,
    partition: true,
  });
}
