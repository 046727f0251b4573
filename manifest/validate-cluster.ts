// The top of the manifest: which cluster, and which release it installs.

import { dnsLabelHint, isDnsLabel, isVersion } from "../common/names.ts";
import type { Check } from "./check.ts";
import { RELEASE_KEYS } from "./keys.ts";
import { isTable, type TomlTable } from "./toml-values.ts";

export function readCluster(ck: Check, doc: TomlTable): string | undefined {
  const cluster = ck.optionalString(
    doc,
    [],
    "cluster",
    "cluster",
    'quote it: cluster = "mycluster"',
  );
  if (!("cluster" in doc)) {
    ck.error(
      ck.tablePos([]),
      'missing key "cluster"',
      'add cluster = "NAME" above the first table, e.g. cluster = "mycluster"',
    );
  }
  if (cluster === undefined) return undefined;
  if (!isDnsLabel(cluster)) {
    ck.error(
      ck.valuePos(["cluster"]),
      `cluster ${JSON.stringify(cluster)} is not a DNS-1123 label`,
      dnsLabelHint(cluster),
    );
    return undefined;
  }
  return cluster;
}

const VERSION_FORM =
  'write MAJOR.MINOR.PATCH with an optional -suffix of letters, digits, "." and "-", e.g. "1.0.0" or "1.1.0-rc.1"';

export function readRelease(ck: Check, doc: TomlTable): { version: string } | undefined {
  const release = doc.release;
  if (release === undefined) {
    ck.error(
      ck.tablePos([]),
      "missing table [release]",
      'add [release] with version = "MAJOR.MINOR.PATCH", the release that install puts into slot A',
    );
    return undefined;
  }
  if (!isTable(release)) {
    const hint = Array.isArray(release)
      ? "write [release] once, with single brackets"
      : 'write [release] with version = "1.0.0" on the next line';
    ck.wrongType(["release"], release, "release", "a table", hint);
    return undefined;
  }
  ck.unknownKeys(release, ["release"], RELEASE_KEYS, "in [release]");
  const version = ck.optionalString(
    release,
    ["release"],
    "version",
    "release.version",
    'quote it: version = "1.0.0"',
  );
  if (!("version" in release)) {
    ck.error(
      ck.tablePos(["release"]),
      'missing key "version" in [release]',
      'add version = "MAJOR.MINOR.PATCH", e.g. version = "1.0.0"',
    );
  }
  if (version === undefined) return undefined;
  if (!isVersion(version)) {
    ck.error(
      ck.valuePos(["release", "version"]),
      `release.version ${JSON.stringify(version)} is not a version`,
      VERSION_FORM,
    );
    return undefined;
  }
  return { version };
}
