import { describe, expect, it } from "vitest";
import { parseBackupGpt, parseGpt } from "./gpt.ts";
import { encodeGpt } from "./gpt-encode.ts";

const MIB = 1024 * 1024;
const ESP = "C12A7328-F81F-11D2-BA4B-00A0C93EC93B";

describe("encodeGpt", () => {
  for (const sectorSize of [512, 4096]) {
    it(`writes a table the reader finds at both ends, in ${sectorSize}-byte sectors only`, () => {
      const diskSize = 64 * MIB;
      const gpt = encodeGpt({
        diskSize,
        sectorSize,
        diskGuid: "4C494B45-0000-4000-8000-000000000001",
        entries: [
          {
            start: MIB,
            size: 8 * MIB,
            typeGuid: ESP,
            uuid: "4C494B45-0000-4000-8000-000000000002",
            name: "liken-esp",
          },
        ],
      });
      const disk = Buffer.alloc(diskSize);
      gpt.head.copy(disk, 0);
      gpt.tail.copy(disk, gpt.tailOffset);
      expect(gpt.tailOffset + gpt.tail.length).toBe(diskSize);
      const entry = {
        number: 1,
        typeGuid: ESP,
        uuid: "4C494B45-0000-4000-8000-000000000002",
        name: "liken-esp",
        start: MIB,
        size: 8 * MIB,
      };
      expect(parseGpt(disk, [sectorSize])).toEqual({
        diskGuid: "4C494B45-0000-4000-8000-000000000001",
        sectorSize,
        entries: [entry],
      });
      expect(
        parseBackupGpt(disk.subarray(diskSize - MIB), diskSize, [sectorSize])?.entries,
      ).toEqual([entry]);
      const other = sectorSize === 512 ? 4096 : 512;
      expect(parseGpt(disk, [other])).toBeUndefined();
    });
  }
});
