import { expect, it } from "vitest";
import { probeDisks } from "./probe.ts";
import type { DiskFacts } from "./types.ts";

it("reads nothing of the disk the machine booted from, which is never a target", async () => {
  // The path does not exist: any read, open or wipefs run of it would fail the probe.
  const stick: DiskFacts = {
    path: "/nonexistent/liken-boot-medium",
    name: "sda",
    kind: "block",
    deviceType: "disk",
    size: 16 * 1024 ** 3,
    logicalSectorSize: 512,
    physicalSectorSize: 512,
    rotational: false,
    readOnly: false,
    removable: true,
    transport: "usb",
    holders: [],
    mounts: [],
    swap: false,
    partitions: [{ path: "/nonexistent/liken-boot-medium2", start: 1024 ** 2 }],
    bootMedium: true,
    missingModules: [],
  };
  expect(await probeDisks([stick])).toEqual([
    { signatures: [], found: [], mbrPartitions: 0, claim: { state: "none" }, failed: [] },
  ]);
});
