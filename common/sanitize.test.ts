import { describe, expect, it } from "vitest";
import { sanitizeMessage } from "./sanitize.ts";

describe("sanitizeMessage", () => {
  it.each([
    [
      "keeps a plain message",
      "writing slot A failed: no space left",
      "writing slot A failed: no space left",
    ],
    ["folds lines into one", "first\n  second\tthird", "first second third"],
    [
      "redacts PEM blocks",
      "bad cert -----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE----- end",
      "bad cert [redacted PEM block] end",
    ],
    [
      "redacts tokens",
      "join failed with token=abc.def123 again",
      "join failed with token=[redacted] again",
    ],
    ["redacts passwords", 'password: "hunter2"', "password: [redacted]"],
    [
      "redacts long secret-looking runs",
      "got eyJhbGciOiJIUzI1NiJ9eyJzdWIiOiIxMjM0NTY3ODkwIn0 back",
      "got [redacted] back",
    ],
    [
      "keeps hashes and UUIDs",
      "sha256 e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855 of 0b7e8a52-34c1-4b7f-9a55-3f1d2e4c5a6b",
      "sha256 e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855 of 0b7e8a52-34c1-4b7f-9a55-3f1d2e4c5a6b",
    ],
    [
      "keeps paths",
      "cannot open /dev/disk/by-id/nvme-Samsung_SSD_980_500GB",
      "cannot open /dev/disk/by-id/nvme-Samsung_SSD_980_500GB",
    ],
    [
      "keeps the kernel's call-trace frames and KEY=UUID words",
      "RIP: entry_SYSCALL_64_after_hwframe+0x64/0xce root=PARTUUID=8e3a9197-fbb5-8a55-a53a-597f36e81060",
      "RIP: entry_SYSCALL_64_after_hwframe+0x64/0xce root=PARTUUID=8e3a9197-fbb5-8a55-a53a-597f36e81060",
    ],
  ])("%s", (_, input, output) => {
    expect(sanitizeMessage(input)).toBe(output);
  });

  it("cuts a long message to one short line", () => {
    const s = sanitizeMessage("word ".repeat(200));
    expect(s.length).toBe(300);
    expect(s.endsWith("…")).toBe(true);
  });
});
