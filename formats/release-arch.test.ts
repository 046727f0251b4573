import { describe, expect, it } from "vitest";
import type { LikenError } from "../common/errors.ts";
import { parseRelease, releaseFiles } from "./release.ts";

const HASH = "c".repeat(64);

function releaseToml(arch: string | undefined, files: readonly string[]): string {
  return [
    'version = "1.0.0"',
    'kernel = "6.1.0-57-arm64"',
    ...(arch === undefined ? [] : [`arch = "${arch}"`]),
    "",
    "[files]",
    ...files.map((f, i) => `"${f}" = { sha256 = "${HASH}", size = ${100 + i} }`),
    "",
    "[verity]",
    `root_hash = "${HASH}"`,
    "data_blocks = 9",
    "",
  ].join("\n");
}

describe("a release's arch", () => {
  it("is read from release.toml, and names the arch's systemd-boot among the files", () => {
    const release = parseRelease("/r", releaseToml("arm64", releaseFiles("arm64")));
    expect(release.arch).toBe("arm64");
    expect(Object.keys(release.files)).toContain("systemd-bootaa64.efi");
  });

  it("is amd64 when release.toml names none, as every release before arm64 did", () => {
    expect(parseRelease("/r", releaseToml(undefined, releaseFiles("amd64"))).arch).toBe("amd64");
  });

  it("refuses an arm64 release that carries amd64's systemd-boot, naming the missing file", () => {
    expect(() => parseRelease("/r", releaseToml("arm64", releaseFiles("amd64")))).toThrow(
      /no sha256 and size for systemd-bootaa64\.efi/,
    );
  });

  it("refuses an arch liken does not build for", () => {
    try {
      parseRelease("/r", releaseToml("riscv64", releaseFiles("amd64")));
      expect.unreachable();
    } catch (error) {
      expect((error as LikenError).reason).toBe("ReleaseInvalid");
      expect((error as LikenError).message).toMatch(/arch is "riscv64", not amd64 or arm64/);
    }
  });
});
