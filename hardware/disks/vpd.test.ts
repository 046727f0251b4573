import { describe, expect, it } from "vitest";
import { vpdSerial, vpdWwn, wwnOfScsiWwid } from "./vpd.ts";

// A VPD page as the kernel keeps it in sysfs: peripheral type, page code, the length of
// what follows (big endian), then the body.
function page(code: number, ...body: (number[] | string)[]): Uint8Array {
  const bytes = body.flatMap((b) => (typeof b === "string" ? [...Buffer.from(b, "latin1")] : b));
  return Uint8Array.from([0x00, code, bytes.length >> 8, bytes.length & 0xff, ...bytes]);
}

// A designator: code set, PIV/association/type, reserved, length, identifier.
function designator(codeSet: number, kind: number, id: number[] | string): number[] {
  const bytes = typeof id === "string" ? [...Buffer.from(id, "latin1")] : id;
  return [codeSet, kind, 0x00, bytes.length, ...bytes];
}

const NAA5 = [0x50, 0x00, 0xc5, 0x00, 0x15, 0xea, 0x71, 0xac];

describe("QEMU's scsi-hd, serial=SCSI-SERIAL-1,wwn=0x5000c50015ea71ac", () => {
  // hw/scsi/scsi-disk.c, scsi_disk_emulate_vpd_page: the device id (the serial by
  // default, ASCII, vendor specific), the NAA of wwn=, then port_wwn= and port_index= for
  // the target port, which must not be taken for the disk.
  const pg80 = page(0x80, "SCSI-SERIAL-1");
  const pg83 = page(
    0x83,
    designator(0x02, 0x00, "SCSI-SERIAL-1"),
    designator(0x01, 0x03, NAA5),
    designator(0x61, 0x93, [0x50, 0x01, 0x40, 0x50, 0x00, 0x00, 0x00, 0x01]),
    designator(0x61, 0x94, [0x00, 0x00, 0x00, 0x01]),
  );

  it("reads the serial of page 0x80", () => {
    expect(vpdSerial(pg80)).toBe("SCSI-SERIAL-1");
  });

  it("reads the logical unit's NAA 5 as udev's ID_WWN writes it", () => {
    expect(vpdWwn(pg83)).toBe("0x5000c50015ea71ac");
  });

  it("takes no target port's name for the disk's", () => {
    const portOnly = page(
      0x83,
      designator(0x61, 0x93, [0x50, 0x01, 0x40, 0x50, 0x00, 0x00, 0x00, 0x01]),
    );
    expect(vpdWwn(portOnly)).toBeUndefined();
  });

  it("finds no WWN without wwn=", () => {
    expect(vpdWwn(page(0x83, designator(0x02, 0x00, "SCSI-SERIAL-1")))).toBeUndefined();
  });
});

describe("a SATA disk behind libata (AHCI)", () => {
  // drivers/ata/libata-scsi.c: page 0x80 is IDENTIFY's 20 serial bytes, right-aligned with
  // spaces; page 0x83 the serial (vendor specific), SAT's "ATA" + model + serial (T10
  // vendor id) and, when the drive has one, its WWN as an NAA designator.
  const serial = "WD-WCC4E1234567".padStart(20);
  const model = "WDC WD40EFRX-68N32N0".padEnd(40);

  it("trims the serial of page 0x80", () => {
    expect(vpdSerial(page(0x80, serial))).toBe("WD-WCC4E1234567");
  });

  it("reads the drive's WWN from page 0x83", () => {
    const pg83 = page(
      0x83,
      designator(0x02, 0x00, serial),
      designator(0x02, 0x01, `ATA     ${model}${serial}`),
      designator(0x01, 0x03, [0x50, 0x01, 0x4e, 0xe2, 0x0b, 0x6c, 0x3a, 0x12]),
    );
    expect(vpdWwn(pg83)).toBe("0x50014ee20b6c3a12");
  });

  it("finds no WWN for a drive without one", () => {
    const pg83 = page(
      0x83,
      designator(0x02, 0x00, serial),
      designator(0x02, 0x01, `ATA     ${model}${serial}`),
    );
    expect(vpdWwn(pg83)).toBeUndefined();
  });
});

describe("the NAA designator udev's scsi_id picks", () => {
  const naa6 = [
    0x60, 0x05, 0x07, 0x68, 0x01, 0x80, 0x80, 0x2b, 0x98, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x1f,
  ];

  it("prefers NAA 6 to NAA 5 wherever it stands, and writes all 16 bytes", () => {
    const pg83 = page(0x83, designator(0x01, 0x03, NAA5), designator(0x01, 0x03, naa6));
    expect(vpdWwn(pg83)).toBe("0x600507680180802b980000000000001f");
  });

  it("prefers NAA 5 to other NAA types, and takes those when nothing else is there", () => {
    const naa3 = [0x30, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x07];
    expect(vpdWwn(page(0x83, designator(0x01, 0x03, naa3), designator(0x01, 0x03, NAA5)))).toBe(
      "0x5000c50015ea71ac",
    );
    expect(vpdWwn(page(0x83, designator(0x01, 0x03, naa3)))).toBe("0x3000000000000007");
  });

  it("takes no all-zero NAA for a name", () => {
    expect(vpdWwn(page(0x83, designator(0x01, 0x03, [0, 0, 0, 0, 0, 0, 0, 0])))).toBeUndefined();
  });

  it("skips an ASCII NAA and an EUI-64, as it does", () => {
    const pg83 = page(
      0x83,
      designator(0x02, 0x03, "5000c50015ea71ac"),
      designator(0x01, 0x02, [0x00, 0x25, 0x38, 0x8b, 0x91, 0xb2, 0x00, 0x01]),
    );
    expect(vpdWwn(pg83)).toBeUndefined();
  });
});

describe("pages that say nothing", () => {
  it("reads nothing from another page, a short page or an empty serial", () => {
    expect(vpdSerial(page(0x83, "SCSI-SERIAL-1"))).toBeUndefined();
    expect(vpdWwn(page(0x80, designator(0x01, 0x03, NAA5)))).toBeUndefined();
    expect(vpdSerial(Uint8Array.from([0x00, 0x80, 0x00]))).toBeUndefined();
    expect(vpdSerial(page(0x80, "                    "))).toBeUndefined();
  });

  it("stops a serial at a NUL and drops what is unprintable", () => {
    expect(vpdSerial(page(0x80, "Z1X2\x01Y3", [0, 0, 0, 0]))).toBe("Z1X2 Y3");
  });

  it("reads no further than the page's length, nor a designator cut short", () => {
    const cut = page(0x83, designator(0x01, 0x03, NAA5));
    expect(vpdWwn(cut.subarray(0, cut.length - 1))).toBeUndefined();
    const longer = Uint8Array.from([...page(0x80, "ABC"), ...Buffer.from("DEF")]);
    expect(vpdSerial(longer)).toBe("ABC");
  });
});

describe("the kernel's wwid of a SCSI disk", () => {
  it("writes an NAA wwid as udev does, and nothing else", () => {
    expect(wwnOfScsiWwid("naa.5000C50015EA71AC\n")).toBe("0x5000c50015ea71ac");
    expect(wwnOfScsiWwid("naa.0000000000000000")).toBeUndefined();
    expect(wwnOfScsiWwid("t10.ATA     QEMU HARDDISK                           QM00001")).toBe(
      undefined,
    );
    expect(wwnOfScsiWwid(null)).toBeUndefined();
  });
});
