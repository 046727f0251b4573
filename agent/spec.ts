// Reads spec.toml (docs/rollback.md, Name the release to run): `version`, and `source`, a
// release directory relative to the spec's own folder. An update medium's spec wins over
// the state partition's and is copied there.
import { readFile } from "node:fs/promises";
import { dirname, isAbsolute, join, normalize } from "node:path";
import { isVersion } from "../common/names.ts";
import { parseSpecDocument, type SpecDocument } from "../formats/spec-document.ts";
import { parseSize } from "../manifest/size.ts";
import type { SpecReading } from "./boot-plan.ts";
import type { SpecStorage } from "./types.ts";

export interface SpecFile {
  readonly reading: SpecReading;
  readonly text: string | null;
  /** Where `source` resolves: the spec file's folder. */
  readonly folder: string;
}

export async function readSpec(path: string): Promise<SpecFile> {
  const folder = dirname(path);
  // No spec file (or none readable) is no spec: the machine keeps its release.
  const text = await readFile(path, "utf8").catch(() => null);
  if (text === null) return { reading: { kind: "none" }, text, folder };
  return { reading: parseSpec(text, path), text, folder };
}

export function parseSpec(text: string, path: string): SpecReading {
  // Read as unknown: a spec from an update medium or a person may hold anything.
  let data: Partial<Record<keyof SpecDocument, unknown>>;
  try {
    data = parseSpecDocument(text);
  } catch (error) {
    return {
      kind: "invalid",
      message: `${path} does not parse: ${(error as Error).message.split("\n")[0]}`,
    };
  }
  const { version, source, reboot, storage } = data;
  if (typeof version !== "string" || !isVersion(version))
    return { kind: "invalid", message: `${path}: version must name a release, such as "2.0.0"` };
  if (
    source !== undefined &&
    (typeof source !== "string" || isAbsolute(source) || normalize(source).startsWith(".."))
  )
    return {
      kind: "invalid",
      message: `${path}: source must be a folder inside the spec's own folder`,
    };
  if (reboot !== undefined && reboot !== "now")
    return { kind: "invalid", message: `${path}: reboot may only be "now" (or left out)` };
  const roles = readStorage(storage);
  if (typeof roles === "string") return { kind: "invalid", message: `${path}: ${roles}` };
  return {
    kind: "spec",
    spec: {
      version,
      source: typeof source === "string" ? source : null,
      rebootNow: reboot === "now",
      storage: roles,
    },
  };
}

// [[storage]] as the manifest writes it: role and size ("1GiB", "rest"); a problem as text.
function readStorage(value: unknown): SpecStorage[] | string {
  if (value === undefined) return [];
  if (!Array.isArray(value)) return "storage must be [[storage]] tables with role and size";
  const roles: SpecStorage[] = [];
  for (const entry of value as Record<string, unknown>[]) {
    const size = parseSize(entry?.size);
    if (typeof entry?.role !== "string" || size === undefined)
      return 'each [[storage]] needs a role and a size such as "1GiB" or "rest"';
    roles.push({ role: entry.role, size });
  }
  return roles;
}

export function sourceDir(spec: SpecFile): string | null {
  return spec.reading.kind === "spec" && spec.reading.spec.source !== null
    ? join(spec.folder, spec.reading.spec.source)
    : null;
}
