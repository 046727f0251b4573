import { describe, expect, it } from "vitest";
import { decodeResponseCode } from "./response-code.ts";

// The codes' layout: TCG TPM 2.0 Library Part 2, section 6.6 (TPM_RC), and Part 1,
// "Response Code Details".
describe("decodeResponseCode", () => {
  it("takes a format 1 code apart: the error, and the session it is about", () => {
    expect(decodeResponseCode(0x99d)).toEqual({
      code: 0x99d,
      base: 0x09d,
      about: { kind: "session", number: 1 },
      name: "TPM_RC_POLICY_FAIL",
      text: "a policy check failed",
    });
  });

  it("tells a parameter's error from a handle's", () => {
    expect(decodeResponseCode(0x1df)).toMatchObject({
      base: 0x09f,
      about: { kind: "parameter", number: 1 },
      name: "TPM_RC_INTEGRITY",
    });
    expect(decodeResponseCode(0x28b)).toMatchObject({
      base: 0x08b,
      about: { kind: "handle", number: 2 },
      name: "TPM_RC_HANDLE",
    });
  });

  it("reads format 0 errors and warnings whole", () => {
    expect(decodeResponseCode(0x921)).toEqual({
      code: 0x921,
      base: 0x921,
      name: "TPM_RC_LOCKOUT",
      text: "the TPM is in dictionary-attack lockout",
    });
    expect(decodeResponseCode(0x128)).toMatchObject({ base: 0x128, name: "TPM_RC_PCR_CHANGED" });
    expect(decodeResponseCode(0x101)).toMatchObject({ name: "TPM_RC_FAILURE" });
  });

  it("names a code it does not know by its value", () => {
    expect(decodeResponseCode(0x57f)).toMatchObject({ name: "0x57f" });
  });
});
