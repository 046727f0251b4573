import { expect, it } from "vitest";
import { renderDisks } from "./render.ts";
import type { Disk } from "./types.ts";

const GIB = 1024 ** 3;

function disk(path: string, verdict: Disk["verdict"], reasons: string[], serial?: string): Disk {
  return {
    path,
    size: 64 * GIB,
    verdict,
    reasons,
    ...(serial ? { serial } : {}),
    logicalSectorSize: 512,
    physicalSectorSize: 512,
    rotational: false,
    kind: "block",
  };
}

it("says below the table what to do with two paths to one disk, once", () => {
  const text = renderDisks([
    disk("/dev/sdb", "ineligible", ["multipath:/dev/sdc"], "SAS-01"),
    disk("/dev/sdc", "ineligible", ["multipath:/dev/sdb"], "SAS-01"),
    disk("/dev/sdd", "blank", []),
  ]);
  const lines = text.trimEnd().split("\n");
  expect(lines).toHaveLength(5);
  expect(lines[1]).toMatch(/^\/dev\/sdb +64 GiB +- +SAS-01 +ineligible +multipath:\/dev\/sdc$/);
  expect(lines[4]).toBe(
    "/dev/sdb and /dev/sdc are one disk (the same WWN) seen through 2 paths: install through one path, with the other cable or HBA taken out.",
  );
});

it("adds nothing below a table without such disks", () => {
  expect(
    renderDisks([disk("/dev/sdd", "blank", [])])
      .trimEnd()
      .split("\n"),
  ).toHaveLength(2);
});

it("names a liken disk's cluster and machine, and a mirror member's place and the disk beside it", () => {
  const claim = {
    cluster: "mycluster",
    machine: "leader-1",
    installId: "0b7e8a52-34c1-4b7f-9a55-3f1d2e4c5a6b",
    release: "1.0.0",
    use: "system" as const,
    complete: true,
    createdAt: "2026-12-01T00:47:25Z",
  };
  const mirror = { member: 1 as const, of: 2 as const, peer: { serial: "S4EVNX0N654321" } };
  const lines = renderDisks([
    { ...disk("/dev/sda", "liken", ["liken-claim:complete"], "WD-WCC4N1234567"), claim },
    {
      ...disk("/dev/sdb", "liken", ["liken-claim:complete"], "S4EVNX0N123456"),
      claim: { ...claim, mirror },
    },
  ]).split("\n");
  expect(lines[1]).toMatch(/ liken +mycluster\/leader-1 release 1\.0\.0, liken-claim:complete$/);
  expect(lines[2]).toMatch(
    / liken +mirror member 1 of 2 of mycluster\/leader-1 beside S4EVNX0N654321 release 1\.0\.0, liken-claim:complete$/,
  );
});
