// Every fixture under test/fixtures/manifests carries its expected problems in its comments.
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { formatProblem, parseManifest } from "./index.ts";

/** Paths are relative to the project, as an operator would pass them; reads do not depend on the cwd. */
const PROJECT = fileURLToPath(new URL("..", import.meta.url));
const ROOT = "test/fixtures/manifests";

function fixtures(dir: string): string[] {
  return readdirSync(join(PROJECT, ROOT, dir))
    .filter((name) => name.endsWith(".toml"))
    .sort();
}

function expected(text: string, kind: "error" | "warning", file: string): string[] {
  const prefix = `# ${kind}: `;
  return text
    .split("\n")
    .filter((line) => line.startsWith(prefix))
    .map((line) => `${file}:${line.slice(prefix.length)}`);
}

describe("bad manifests", () => {
  const names = fixtures("bad");

  it("cover at least 30 cases", () => {
    expect(names.length).toBeGreaterThanOrEqual(30);
  });

  it.each(names)("%s", (name) => {
    const file = join(ROOT, "bad", name);
    const text = readFileSync(join(PROJECT, file), "utf8");
    const result = parseManifest(text, file);
    const errors = expected(text, "error", file);
    expect(errors.length).toBeGreaterThan(0);
    expect(result.ok).toBe(false);
    expect(result.ok ? [] : result.errors.map(formatProblem)).toEqual(errors);
    expect(result.warnings.map(formatProblem)).toEqual(expected(text, "warning", file));
  });
});

describe("manifests with warnings", () => {
  it.each(fixtures("warn"))("%s", (name) => {
    const file = join(ROOT, "warn", name);
    const text = readFileSync(join(PROJECT, file), "utf8");
    const result = parseManifest(text, file);
    const warnings = expected(text, "warning", file);
    expect(warnings.length).toBeGreaterThan(0);
    expect(result.ok ? [] : result.errors.map(formatProblem)).toEqual([]);
    expect(result.warnings.map(formatProblem)).toEqual(warnings);
  });
});
