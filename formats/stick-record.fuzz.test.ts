// installed.json on the stick's payload partition decides whether an unattended stick
// installs again: whatever it holds, it reads as a record of installs or a refusal that
// names the file.
import { describe, expect } from "vitest";
import { LikenError } from "../common/errors.ts";
import { itReadsAnyText } from "../test/fuzz-text.ts";
import {
  EMPTY_STICK_RECORD,
  encodeStickRecord,
  parseStickRecord,
  recordsInstall,
  withInstall,
} from "./stick-record.ts";

const FILE = "/payload/installed.json";
const valid = encodeStickRecord(
  withInstall(EMPTY_STICK_RECORD, {
    installId: "0b7e8a52-34c1-4b7f-9a55-3f1d2e4c5a6b",
    cluster: "testcluster",
    machine: "leader-1",
    release: "1.0.0",
    installedAt: "2026-12-01T04:41:07Z",
    systemDisk: { path: "/dev/nvme0n1", serial: "S5GXNX0T123456", wwn: null },
  }),
);

// What the unattended install does with it: look an install id up, and add one.
function expectRecord(text: string): void {
  try {
    const record = parseStickRecord(text, FILE);
    recordsInstall(record, "0B7E8A52-34C1-4B7F-9A55-3F1D2E4C5A6B");
    expect(parseStickRecord(encodeStickRecord(record), FILE)).toEqual(record);
  } catch (error) {
    expect(error).toBeInstanceOf(LikenError);
    expect((error as LikenError).message).toContain(FILE);
  }
}

describe("the stick's record of its installs, fuzzed", () => {
  itReadsAnyText(valid, "json", expectRecord);
});
