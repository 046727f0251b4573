// spec.toml is read at every boot from the state partition or an update medium: whatever it
// holds reads as a spec, none, or invalid with a message, and a spec's source never leaves
// the spec's own folder.
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

function expectSpec(text: string): void {
  const reading = parseSpec(text, FILE);
  if (reading.kind === "invalid") {
    expect(typeof reading.message).toBe("string");
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
