import { expect, it } from "vitest";
import type { Disk } from "../../hardware/disks/types.ts";
import { matchesSelector } from "./order.ts";

function disk(wwn?: string): Disk {
  return {
    path: "/dev/sdb",
    size: 64 * 1024 ** 3,
    verdict: "blank",
    reasons: [],
    ...(wwn ? { wwn } : {}),
    logicalSectorSize: 512,
    physicalSectorSize: 512,
    rotational: false,
    kind: "block",
  };
}

it("matches a WWN with or without its prefix, in either case", () => {
  for (const wwn of [
    "0x5000c50015ea71ac",
    "naa.5000c50015ea71ac",
    "5000C50015EA71AC",
    "0x5000c500*",
  ]) {
    expect(matchesSelector(disk("0x5000c50015ea71ac"), { wwn })).toBe(true);
  }
  expect(matchesSelector(disk("eui.0025388b91b2a1c3"), { wwn: "0x0025388b91b2a1c3" })).toBe(true);
  expect(matchesSelector(disk("eui.0025388b91b2a1c3"), { wwn: "eui.0025388b91b2a1c3" })).toBe(true);
});

it("matches no other WWN, and no disk without one or with an all-zero one", () => {
  expect(matchesSelector(disk("0x5000c50015ea71ad"), { wwn: "0x5000c50015ea71ac" })).toBe(false);
  expect(matchesSelector(disk(), { wwn: "*" })).toBe(false);
  expect(matchesSelector(disk("0x0000000000000000"), { wwn: "*" })).toBe(false);
});
