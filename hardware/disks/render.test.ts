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
