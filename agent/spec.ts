// Reads spec.toml (docs/rollback.md, Name the release to run): `version`, and `source`, a
// release directory relative to the spec's own folder, or `url` and `release_sha256`, a
// release folder on a server and the digest that vouches for it. An update medium's spec
// wins over the state partition's and is copied there.
import { readFile } from "node:fs/promises";
import { dirname, isAbsolute, join, normalize } from "node:path";
import { isVersion } from "../common/names.ts";
import { parseSpecDocument, type SpecDocument } from "../formats/spec-document.ts";
import { parseSize } from "../manifest/size.ts";
import type { SpecReading } from "./boot-plan.ts";
import type { SpecDownload, SpecStorage } from "./types.ts";

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
  const { version, source, url, release_sha256, reboot, storage } = data;
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
  const download = readDownload(source, url, release_sha256);
  if (typeof download === "string") return { kind: "invalid", message: `${path}: ${download}` };
  if (reboot !== undefined && reboot !== "now")
    return { kind: "invalid", message: `${path}: reboot may only be "now" (or left out)` };
  const roles = readStorage(storage);
  if (typeof roles === "string") return { kind: "invalid", message: `${path}: ${roles}` };
  return {
    kind: "spec",
    spec: {
      version,
      source: typeof source === "string" ? source : null,
      ...(download ? { download } : {}),
      rebootNow: reboot === "now",
      storage: roles,
    },
  };
}

const HOW_TO_DIGEST = "the sha256 of the release's release.toml (sha256sum release.toml)";

/**
 * `url` and `release_sha256`, which come together and never with `source`; null when the
 * spec names neither; a problem as text. The URL is kept with a `/` at its end, so a
 * file's name appends to it.
 */
function readDownload(
  source: unknown,
  url: unknown,
  digest: unknown,
): SpecDownload | null | string {
  if (url === undefined)
    return digest === undefined
      ? null
      : "release_sha256 goes only with url: name the release's url, or remove release_sha256";
  if (source !== undefined)
    return "give source or url, not both: source names a folder beside the spec, url one on a server";
  const base = releaseFolderUrl(url);
  if (base === null)
    return 'url must be an http:// or https:// address of a release folder, such as "http://10.0.0.5/releases/2.0.0/" (no spaces, user, password, ? or #)';
  if (digest === undefined) return `url needs release_sha256, ${HOW_TO_DIGEST}`;
  if (typeof digest !== "string" || !/^[0-9a-fA-F]{64}$/.test(digest))
    return `release_sha256 must be 64 hex digits, ${HOW_TO_DIGEST}`;
  return { url: base, releaseSha256: digest.toLowerCase() };
}

// An absolute http or https URL, as the WHATWG parser reads it, ending in `/`. The parser
// forgives much ("http:host", "http:///host", spaces, tabs, control characters, a
// backslash), so the text itself must be the scheme, `//` and a host, in printable ASCII
// without spaces or backslashes. A user and password would reach the console and the
// status in every message that names the URL; a query or fragment would not survive a
// file's name appended to it.
function releaseFolderUrl(value: unknown): string | null {
  if (typeof value !== "string" || !/^https?:\/\/(?!\/)[!-[\]-~]+$/i.test(value)) return null;
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return null; // not a URL: the caller says what a url must be
  }
  if (url.hostname === "" || url.username !== "" || url.password !== "") return null;
  if (url.search !== "" || url.hash !== "" || value.includes("?") || value.includes("#"))
    return null;
  return url.pathname.endsWith("/") ? url.href : `${url.href}/`;
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
