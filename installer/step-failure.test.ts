import { describe, expect, it } from "vitest";
import { CommandError } from "../tools/exec.ts";
import { stepFailureOf } from "./step-failure.ts";

const errno = (code: string) => Object.assign(new Error(code), { code });

describe("an unexpected error in an install step", () => {
  it.each([
    [
      "a missing tool",
      new CommandError("sfdisk", undefined, undefined, false, "", "fdisk"),
      "ToolMissing",
      /apt-get install fdisk/,
    ],
    ["a denied open", errno("EACCES"), "PermissionDenied", /as root/],
    ["a write-protected disk", errno("EROFS"), "PermissionDenied", /write-protected/],
    ["a vanished disk", errno("ENXIO"), "DiskChanged", /went away/],
    ["an I/O error", errno("EIO"), "WriteFailed", /dmesg/],
    ["anything else", new Error("boom"), "WriteFailed", /safe to repeat/],
  ])("reports %s as what it is", (_, error, reason, hint) => {
    const failure = stepFailureOf(error, "WriteFailed");
    expect(failure.reason).toBe(reason);
    expect(failure.hint).toMatch(hint);
  });
});
