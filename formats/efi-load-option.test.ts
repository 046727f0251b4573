import { describe, expect, it } from "vitest";
import { efiGuidBytes } from "./efi-guid.ts";
import { decodeLoadOption, encodeLoadOption, type LoadOption } from "./efi-load-option.ts";

const option: LoadOption = {
  description: "liken",
  partition: {
    number: 1,
    startLba: 2048,
    sizeLba: 524_288,
    uuid: "0B7E8A52-34C1-4B7F-9A55-3F1D2E4C5A6B",
  },
  path: "\\EFI\\BOOT\\BOOTX64.EFI",
};

// Written out by hand from the UEFI spec 2.10: EFI_LOAD_OPTION (section 3.1.3), then the
// Hard Drive media node (10.3.5.1), the File Path media node (10.3.5.4) and the End of
// Entire Device Path node (10.3.1). It has the shape `efibootmgr --create --disk D --part 1
// --label liken --loader '\EFI\BOOT\BOOTX64.EFI'` gives an entry: active, the short
// HD(1,GPT,GUID,0x800,0x80000)/File(\EFI\BOOT\BOOTX64.EFI) path, no optional data.
const hex = (s: string) => Buffer.from(s.replace(/\s+/g, ""), "hex");
const expected = Buffer.concat([
  hex("01000000"), // Attributes: LOAD_OPTION_ACTIVE
  hex("5e00"), // FilePathListLength: 42 + 48 + 4 = 94 bytes
  hex("6c00 6900 6b00 6500 6e00 0000"), // Description: "liken", UCS-2, NUL-terminated
  // Hard Drive: type 4, subtype 1, length 42
  hex("04 01 2a00"),
  hex("01000000"), // PartitionNumber 1
  hex("0008000000000000"), // PartitionStart 2048
  hex("0000080000000000"), // PartitionSize 524288
  // PartitionSignature: the GUID as EFI_GUID stores it, the first three fields little-endian
  hex("528a7e0b c134 7f4b 9a55 3f1d2e4c5a6b"),
  hex("02"), // MBRType 2: GPT
  hex("02"), // SignatureType 2: GUID
  // File Path: type 4, subtype 4, length 4 + 44
  hex("04 04 3000"),
  // \EFI\BOOT\BOOTX64.EFI, UCS-2, NUL-terminated
  hex("5c00 4500 4600 4900 5c00 4200 4f00 4f00 5400 5c00 4200 4f00 4f00 5400 5800 3600 3400"),
  hex("2e00 4500 4600 4900 0000"),
  hex("7f ff 0400"), // End of Entire Device Path
]);

describe("an EFI load option", () => {
  it("encodes a GPT partition's loader byte by byte as the spec lays it out", () => {
    const bytes = encodeLoadOption(option);
    expect(bytes.toString("hex")).toBe(expected.toString("hex"));
    expect(bytes.length).toBe(6 + 12 + 94);
  });

  it("stores a GUID as EFI_GUID does, as every GPT holds the EFI System type", () => {
    expect(efiGuidBytes("C12A7328-F81F-11D2-BA4B-00A0C93EC93B").toString("hex")).toBe(
      "28732ac11ff8d211ba4b00a0c93ec93b",
    );
  });

  it("passes the checks the kernel makes before it lets efivarfs store a Boot#### value", () => {
    // drivers/firmware/efi/vars.c validate_load_option: description + path list + 6 fit,
    // and the path list ends in an End of Entire Device Path node.
    const bytes = encodeLoadOption({ ...option, description: "liken testcluster/leader-1" });
    const pathsLength = bytes.readUInt16LE(4);
    const descriptionBytes = 2 * ("liken testcluster/leader-1".length + 1);
    expect(6 + descriptionBytes + pathsLength).toBe(bytes.length);
    expect(bytes.subarray(-4).toString("hex")).toBe("7fff0400");
  });

  it("decodes what it encodes: description, partition GUID and path", () => {
    expect(decodeLoadOption(encodeLoadOption(option))).toEqual({
      active: true,
      description: "liken",
      partitionUuid: "0B7E8A52-34C1-4B7F-9A55-3F1D2E4C5A6B",
      path: "\\EFI\\BOOT\\BOOTX64.EFI",
    });
  });

  it("decodes a firmware entry without a disk: a description and no partition", () => {
    // OVMF's UiApp entry: a firmware-volume path (type 4 subtypes 7 and 6), then the end.
    const fv = Buffer.concat([
      hex("01000000"),
      hex("2c00"),
      Buffer.from("UiApp\0", "utf16le"),
      hex("04 07 1400"),
      hex("c9bdb87c ebf8 34 4f aaea3ee4af6516a1"),
      hex("04 06 1400"),
      hex("21aa2c46 1499 7b46 b541 d6b0ab2d6e5c"),
      hex("7f ff 0400"),
    ]);
    expect(decodeLoadOption(fv)).toEqual({ active: true, description: "UiApp" });
  });

  it("refuses values that are not load options", () => {
    expect(decodeLoadOption(Buffer.alloc(4))).toBeUndefined();
    const bytes = encodeLoadOption(option);
    expect(decodeLoadOption(bytes.subarray(0, bytes.length - 4))).toBeUndefined();
    const noEnd = Buffer.from(bytes);
    noEnd.writeUInt16LE(0, bytes.length - 2); // a node of length 0 never ends
    expect(decodeLoadOption(noEnd)).toBeUndefined();
    expect(() => encodeLoadOption({ ...option, description: "liken 🙂" })).toThrow(/UCS-2/);
  });
});
