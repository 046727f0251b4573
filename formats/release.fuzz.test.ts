// release.toml is read from a stick, an update medium and each slot's folder on the ESP:
// whatever it says, the reader answers with a release whose every field is what its type
// says, or a ReleaseInvalid refusal.
import { describe, expect, it } from "vitest";
import { LikenError } from "../common/errors.ts";
import { itReadsAnyText } from "../test/fuzz-text.ts";
import { parseRelease, RELEASE_FILES, type ReleaseInfo } from "./release.ts";

const HASH = "a".repeat(64);
const valid = [
  'version = "1.0.0"',
  'kernel = "6.1.0-28-amd64"',
  "",
  "[files]",
  ...[...RELEASE_FILES, "liken.efi"].map(
    (f, i) => `"${f}" = { sha256 = "${HASH}", size = ${1000 + i} }`,
  ),
  "",
  "[verity]",
  `root_hash = "${HASH}"`,
  "data_blocks = 250",
  "",
].join("\n");

function expectRelease(text: string): void {
  let release: ReleaseInfo;
  try {
    release = parseRelease("/release", text);
  } catch (error) {
    expect(error).toBeInstanceOf(LikenError);
    expect((error as LikenError).reason).toBe("ReleaseInvalid");
    return;
  }
  expect(typeof release.version).toBe("string");
  expect(typeof release.kernel).toBe("string");
  for (const f of Object.values(release.files)) {
    expect(f.sha256).toMatch(/^[0-9a-f]{64}$/);
    expect(Number.isSafeInteger(f.size) && f.size >= 0).toBe(true);
  }
  expect(release.rootfsSize).toBe(release.files["rootfs.img"]?.size);
  expect(release.verity.rootHash).toMatch(/^[0-9a-f]{64}$/);
  expect(Number.isSafeInteger(release.verity.dataBlocks) && release.verity.dataBlocks > 0).toBe(
    true,
  );
}

describe("release.toml's reader, fuzzed", () => {
  it("reads the document the release build writes", () => {
    expect(parseRelease("/release", valid).signed).toBe(true);
  });

  itReadsAnyText(valid, "toml", expectRelease, 400);
});
