import { expect, it } from "vitest";
import { wwnKey, wwnPattern } from "./wwn.ts";

it("compares a WWN however it is written", () => {
  for (const w of ["0x5000c50015ea71ac", "0X5000C50015EA71AC", "naa.5000c50015ea71ac"]) {
    expect(wwnKey(w)).toBe("5000c50015ea71ac");
  }
  expect(wwnKey("eui.0025388b91b2a1c3")).toBe("0025388b91b2a1c3");
  expect(wwnKey("uuid.6b1e2f7c-9d1a-4c55-8a7e-3f0c2b1d4e5a")).toBe(
    "uuid.6b1e2f7c-9d1a-4c55-8a7e-3f0c2b1d4e5a",
  );
});

it("reads an empty or all-zero WWN as none", () => {
  for (const w of [undefined, "", " ", "0x", "0x0000000000000000", "naa.00000000", "0"]) {
    expect(wwnKey(w)).toBeUndefined();
  }
});

it("makes a selector's prefix optional", () => {
  expect(wwnPattern("0x5000c500*")).toBe("5000c500*");
  expect(wwnPattern("naa.5000c50015ea71ac")).toBe("5000c50015ea71ac");
  expect(wwnPattern("*71ac")).toBe("*71ac");
});
