import { expect, it } from "vitest";
import { decoded, parseUdevEntry } from "./block-devices.ts";

it("reads a disk's model, serial and WWN from udev's database entry as lsblk does", () => {
  const entry = parseUdevEntry(
    [
      "S:disk/by-id/ata-Samsung_SSD_870_EVO_1TB_S6PUNX0T123456",
      "I:1234567",
      "E:ID_MODEL=Samsung_SSD_870_EVO_1TB",
      "E:ID_MODEL_ENC=Samsung\\x20SSD\\x20870\\x20EVO\\x201TB\\x20\\x20\\x20\\x20",
      "E:ID_SERIAL_SHORT=S6PUNX0T123456",
      "E:ID_WWN=0x5002538f4212abcd",
      "E:ID_FS_LABEL=",
      "G:systemd",
    ].join("\n"),
  );
  expect(decoded(entry.get("ID_MODEL_ENC"))).toBe("Samsung SSD 870 EVO 1TB");
  expect(entry.get("ID_SERIAL_SHORT")).toBe("S6PUNX0T123456");
  expect(entry.get("ID_WWN")).toBe("0x5002538f4212abcd");
  expect(entry.has("ID_FS_LABEL")).toBe(false);
  expect(entry.has("I")).toBe(false);
});
