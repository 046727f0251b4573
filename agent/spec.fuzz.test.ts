// spec.toml is read at every boot from the state partition or an update medium: whatever it
// holds reads as a spec, none, or invalid with a message, a spec's source never leaves
// the spec's own folder, and a spec's url is an http or https folder with its digest.
import { join, normalize } from "node:path";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { isVersion } from "../common/names.ts";
import { fuzzParameters } from "../test/fuzz.ts";
import { itReadsAnyText } from "../test/fuzz-text.ts";
import { parseSpec, sourceDir } from "./spec.ts";

const FILE = "/media/LIKEN-UPDATE/spec.toml";
const valid = [
  'version = "2.0.0"',
  'source = "releases/2.0.0"',
  'reboot = "now"',
  "",
  "[[storage]]",
  'role = "data"',
  'size = "10GiB"',
  "",
  "[[storage]]",
  'role = "logs"',
  'size = "rest"',
  "",
].join("\n");

const byUrl = [
  'version = "2.0.0"',
  'url = "http://10.0.0.5/releases/2.0.0/"',
  `release_sha256 = "${"0123456789abcdef".repeat(4)}"`,
  "",
].join("\n");

function expectSpec(text: string): void {
  const reading = parseSpec(text, FILE);
  if (reading.kind === "invalid") {
    expect(typeof reading.message).toBe("string");
    expect(reading.message).not.toContain("\n");
    return;
  }
  expect(reading.kind).toBe("spec");
  if (reading.kind !== "spec") return;
  const { spec } = reading;
  expect(isVersion(spec.version)).toBe(true);
  expect(typeof spec.rebootNow).toBe("boolean");
  for (const s of spec.storage) {
    expect(typeof s.role).toBe("string");
    expect(s.size === "rest" || (Number.isSafeInteger(s.size) && s.size >= 0)).toBe(true);
  }
  if (spec.download) {
    expect(spec.source).toBeNull();
    expect(spec.download.url).toMatch(/^https?:\/\/[^/\s@?#]+\/([^\s?#]*\/)?$/);
    expect(new URL(spec.download.url).href).toBe(spec.download.url);
    expect(spec.download.releaseSha256).toMatch(/^[0-9a-f]{64}$/);
  }
  const folder = "/media/LIKEN-UPDATE";
  const source = sourceDir({ reading, text, folder });
  // "" and "." name the spec's folder itself: inside, as the spec means.
  if (source !== null)
    expect(source === folder || normalize(source).startsWith(join(folder, "/"))).toBe(true);
}

describe("spec.toml's reader, fuzzed", () => {
  it("reads the spec an operator writes", () => {
    expect(parseSpec(valid, FILE).kind).toBe("spec");
  });

  itReadsAnyText(valid, "toml", expectSpec);

  it("reads the spec that names a release by url", () => {
    expect(parseSpec(byUrl, FILE)).toMatchObject({ kind: "spec", spec: { download: {} } });
  });

  itReadsAnyText(byUrl, "toml", expectSpec);

  it("keeps any url an http or https folder", () => {
    const part = fc.constantFrom(
      "http://",
      "https://",
      "HTTP://",
      "10.0.0.5",
      "[fd00::5]",
      ":8080",
      ":0",
      "/",
      "//",
      "..",
      "releases",
      "@",
      "user:pw@",
      "?",
      "#",
      "%2e",
      " ",
      "\\",
      "\t",
      "é",
    );
    fc.assert(
      fc.property(fc.array(part, { maxLength: 7 }), (parts) =>
        expectSpec(
          `version = "2.0.0"\nurl = ${JSON.stringify(parts.join(""))}\nrelease_sha256 = "${"a".repeat(64)}"\n`,
        ),
      ),
      fuzzParameters(),
    );
  });

  it("keeps any source inside the spec's folder", () => {
    const segment = fc.constantFrom("..", ".", "releases", "", "a/../..", "/etc", "\\..");
    fc.assert(
      fc.property(fc.array(segment, { maxLength: 5 }), (parts) =>
        expectSpec(`version = "2.0.0"\nsource = ${JSON.stringify(parts.join("/"))}\n`),
      ),
      fuzzParameters(),
    );
  });
});
