import { describe, expect, it } from "vitest";
import { normalizeRecoveryKey, recoveryKeyText } from "./recovery-key.ts";

describe("the recovery key's text", () => {
  const bytes = Uint8Array.from({ length: 32 }, (_, i) => i * 8);

  it("is 8 groups of 8 modhex characters: 256 bits a person can type", () => {
    const text = recoveryKeyText(bytes);
    expect(text).toMatch(/^([cbdefghijklnrtuv]{8}-){7}[cbdefghijklnrtuv]{8}$/);
    expect(recoveryKeyText(new Uint8Array(32))).toBe(Array(8).fill("cccccccc").join("-"));
  });

  it("reads back as typed in capitals, with spaces or without dashes", () => {
    const text = recoveryKeyText(bytes);
    expect(normalizeRecoveryKey(text.toUpperCase())).toBe(text);
    expect(normalizeRecoveryKey(` ${text.replaceAll("-", " ")} `)).toBe(text);
    expect(normalizeRecoveryKey(text.replaceAll("-", ""))).toBe(text);
  });

  it("is not a key with a character outside the alphabet or one too few", () => {
    const text = recoveryKeyText(bytes);
    expect(normalizeRecoveryKey(`${text.slice(0, -1)}a`)).toBeUndefined();
    expect(normalizeRecoveryKey(text.slice(0, -1))).toBeUndefined();
    expect(normalizeRecoveryKey("")).toBeUndefined();
  });
});
