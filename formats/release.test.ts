// What the operator reads when --release names something that is not a release.
import { mkdir, mkdtemp, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { readReleaseToml, requireRelease } from "./release.ts";

async function refusal(dir: string): Promise<string> {
  return requireRelease(dir).then(
    () => "accepted",
    (error: Error) => error.message,
  );
}

describe("requireRelease", () => {
  it("says the release folder does not exist", async () => {
    expect(await refusal("/nonexistent/release")).toBe(
      "the release folder /nonexistent/release does not exist (name the folder that liken-stick release --out wrote)",
    );
  });

  it("says a file given as the release is not a folder", async () => {
    const file = join(await mkdtemp(join(tmpdir(), "liken-release-")), "release.toml");
    await writeFile(file, "");
    expect(await refusal(file)).toBe(
      `the release ${file} is a file, not a folder (name the folder that liken-stick release --out wrote)`,
    );
  });

  it("says a folder without release.toml is not a release", async () => {
    const dir = join(await mkdtemp(join(tmpdir(), "liken-release-")), "empty");
    await mkdir(dir);
    expect(await refusal(dir)).toBe(
      `release ${dir} is not usable: it has no release.toml (build it again with liken-stick release)`,
    );
  });
});

describe("readReleaseToml", () => {
  it("gives the fields a damaged file still holds, and no others", () => {
    const text = 'version = "2.0.0"\n[files]\n"rootfs.img" = { sha256 = "abc", size = -1 }\n';
    expect(readReleaseToml(text)).toEqual({ version: "2.0.0", files: { "rootfs.img": null } });
  });

  it("throws on text that is not TOML", () => {
    expect(() => readReleaseToml("version = ")).toThrow();
  });
});
