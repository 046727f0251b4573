// What `manifest check` prints reads back as the same manifest, for every good manifest of
// the tests and examples: no key is lost in the normalized form, networks included.
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { parseManifest } from "../manifest/index.ts";
import { renderManifest } from "./manifest-text.ts";

const GOOD = "test/fixtures/manifests/good";
const files = [
  ...readdirSync(GOOD)
    .filter((f) => f.endsWith(".toml"))
    .map((f) => join(GOOD, f)),
  ...readdirSync("examples")
    .filter((f) => f.endsWith(".toml"))
    .map((f) => join("examples", f)),
];

describe("renderManifest", () => {
  it.each(files)("%s reads back as the same manifest", (file) => {
    const first = parseManifest(readFileSync(file, "utf8"), file);
    if (!first.ok) throw new Error(`${file} does not check: ${JSON.stringify(first.errors)}`);
    const again = parseManifest(renderManifest(first.manifest), "printed.toml");
    if (!again.ok)
      throw new Error(`the printed ${file} does not check: ${JSON.stringify(again.errors)}`);
    expect(again.manifest).toEqual(first.manifest);
  });
});
