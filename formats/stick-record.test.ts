import { describe, expect, it } from "vitest";
import {
  EMPTY_STICK_RECORD,
  encodeStickRecord,
  parseStickRecord,
  type RecordedInstall,
  recordsInstall,
  withInstall,
} from "./stick-record.ts";

const first: RecordedInstall = {
  installId: "0b7e8a52-34c1-4b7f-9a55-3f1d2e4c5a6b",
  cluster: "testcluster",
  machine: "leader-1",
  release: "1.0.0",
  installedAt: "2026-12-01T04:41:07Z",
  systemDisk: { path: "/dev/nvme0n1", serial: "S5GXNX0T123456", wwn: "eui.0025388b91c2a1f0" },
};
const FILE = "/payload/installed.json";

describe("the stick's record of its installs", () => {
  it("reads back what it wrote, one entry per install id", () => {
    const second = { ...first, installId: "4d21b016-b534-45c2-a9fb-5c16e091fd2d", machine: "w-1" };
    const record = withInstall(withInstall(EMPTY_STICK_RECORD, first), second);
    const again = withInstall(record, { ...first, release: "1.1.0" });
    expect(again.installs.map((i) => [i.machine, i.release])).toEqual([
      ["w-1", "1.0.0"],
      ["leader-1", "1.1.0"],
    ]);
    expect(parseStickRecord(encodeStickRecord(again), FILE)).toEqual(again);
  });

  it("is a JSON document a person can read on any computer", () => {
    const text = encodeStickRecord(withInstall(EMPTY_STICK_RECORD, first));
    expect(JSON.parse(text)).toEqual({ kind: "LikenStickInstalls", version: 1, installs: [first] });
    expect(text.endsWith("}\n")).toBe(true);
  });

  it("knows the install ids it lists, in either case", () => {
    const record = withInstall(EMPTY_STICK_RECORD, first);
    expect(recordsInstall(record, first.installId.toUpperCase())).toBe(true);
    expect(recordsInstall(record, "4d21b016-b534-45c2-a9fb-5c16e091fd2d")).toBe(false);
    expect(recordsInstall(EMPTY_STICK_RECORD, first.installId)).toBe(false);
  });

  it("accepts disks without a serial or WWN", () => {
    const bare = { ...first, systemDisk: { path: "/dev/vda", serial: null, wwn: null } };
    const text = encodeStickRecord(withInstall(EMPTY_STICK_RECORD, bare));
    expect(parseStickRecord(text, FILE).installs[0]?.systemDisk).toEqual(bare.systemDisk);
  });

  it("refuses anything else, and says how to let the stick install again", () => {
    const message =
      "/payload/installed.json is not a record of liken installs, so the stick cannot tell what it installed (delete /payload/installed.json to let the stick install again, or write the stick again)";
    for (const text of [
      "",
      "{",
      "[]",
      '{"kind":"LikenStickInstalls","version":2,"installs":[]}',
      '{"kind":"LikenStickInstalls","version":1,"installs":[{"installId":"x"}]}',
    ]) {
      expect(() => parseStickRecord(text, FILE)).toThrow(message);
    }
  });
});
