// release.toml is read from a stick, an update medium and each slot's folder on the ESP:
// whatever it says, the reader answers with a release whose every field is what its type
// says, or a ReleaseInvalid refusal; read field by field (inspect), each field it gives is
// what its type says.
import { describe, expect, it } from "vitest";
import { LikenError } from "../common/errors.ts";
import { itReadsAnyText } from "../test/fuzz-text.ts";
import {
  parseRelease,
  type ReleaseInfo,
  type ReleaseTomlFields,
  readReleaseToml,
  releaseFiles,
} from "./release.ts";

const HASH = "a".repeat(64);
const valid = [
  'version = "1.0.0"',
  'kernel = "6.1.0-28-amd64"',
  "",
  "[files]",
  ...[...releaseFiles("amd64"), "liken.efi"].map(
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

function expectFields(text: string): void {
  let fields: ReleaseTomlFields;
  try {
    fields = readReleaseToml(text);
  } catch (error) {
    // Text that is not TOML: inspect names the file unparseable.
    expect(error).toBeInstanceOf(Error);
    return;
  }
  for (const key of ["version", "kernel"] as const)
    if (key in fields) expect(typeof fields[key]).toBe("string");
  for (const f of Object.values(fields.files ?? {})) {
    if (f === null) continue;
    expect(f.sha256).toMatch(/^[0-9a-f]{64}$/);
    expect(Number.isSafeInteger(f.size) && f.size >= 0).toBe(true);
  }
  if (fields.verity) {
    expect(fields.verity.rootHash).toMatch(/^[0-9a-f]{64}$/);
    expect(Number.isSafeInteger(fields.verity.dataBlocks)).toBe(true);
  }
}

describe("release.toml's fields, fuzzed", () => {
  it("reads the document the release build writes", () => {
    const fields = readReleaseToml(valid);
    expect(fields.version).toBe("1.0.0");
    expect(fields.files?.["rootfs.img"]).toEqual({ sha256: HASH, size: 1002 });
    expect(fields.verity).toEqual({ rootHash: HASH, dataBlocks: 250 });
  });

  itReadsAnyText(valid, "toml", expectFields, 400);
});
