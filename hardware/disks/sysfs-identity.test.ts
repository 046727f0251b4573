import { expect, it } from "vitest";
import { nvmeWwid, type SysfsFiles, sysfsIdentity } from "./sysfs-identity.ts";

// A disk's files below /sys/block/NAME; what it reads is kept, to show each bus stops at
// its own files.
function disk(files: Record<string, string | Uint8Array>): SysfsFiles & { asked: string[] } {
  const asked: string[] = [];
  const get = (file: string) => {
    asked.push(file);
    return files[file] ?? null;
  };
  return {
    asked,
    text: (file) => {
      const v = get(file);
      return v === null ? null : typeof v === "string" ? v.trim() : Buffer.from(v).toString();
    },
    bytes: (file) => {
      const v = get(file);
      return v === null ? null : typeof v === "string" ? Buffer.from(v) : v;
    },
  };
}

const pg80 = Uint8Array.from([0x00, 0x80, 0x00, 0x06, ...Buffer.from("SAS-01")]);
const pg83 = Uint8Array.from([
  0x00, 0x83, 0x00, 0x0c, 0x01, 0x03, 0x00, 0x08, 0x50, 0x00, 0xc5, 0x00, 0x15, 0xea, 0x71, 0xac,
]);

it("reads a SCSI, SAS or SATA disk's VPD pages", () => {
  expect(sysfsIdentity(disk({ "device/vpd_pg80": pg80, "device/vpd_pg83": pg83 }))).toEqual({
    serial: "SAS-01",
    wwn: "0x5000c50015ea71ac",
  });
});

it("takes the kernel's NAA wwid where page 0x83 names none", () => {
  const noNaa = Uint8Array.from([0x00, 0x83, 0x00, 0x00]);
  const files = { "device/vpd_pg80": pg80, "device/vpd_pg83": noNaa };
  expect(sysfsIdentity(disk({ ...files, "device/wwid": "naa.5000c50015ea71ac\n" }))).toEqual({
    serial: "SAS-01",
    wwn: "0x5000c50015ea71ac",
  });
  expect(sysfsIdentity(disk({ ...files, "device/wwid": "t10.ATA     QEMU HARDDISK" }))).toEqual({
    serial: "SAS-01",
  });
});

it("gives an NVMe namespace's wwid as udev's ID_WWN does, and reads nothing more", () => {
  const nvme = disk({ wwid: "eui.0025388b91b2a1c3\n", serial: "unused" });
  expect(sysfsIdentity(nvme)).toEqual({ wwn: "eui.0025388b91b2a1c3" });
  expect(nvme.asked).toEqual(["device/vpd_pg80", "device/vpd_pg83", "wwid"]);
  expect(sysfsIdentity(disk({ wwid: "uuid.6b1e2f7c-9d1a-4c55-8a7e-3f0c2b1d4e5a" }))).toEqual({
    wwn: "uuid.6b1e2f7c-9d1a-4c55-8a7e-3f0c2b1d4e5a",
  });
});

it("writes an NVMe wwid from nguid or eui where the kernel has no wwid file", () => {
  expect(
    sysfsIdentity(
      disk({ nguid: "00000000-0000-0000-0000-000000000000", eui: "00 25 38 8b 91 b2 a1 c3" }),
    ),
  ).toEqual({ wwn: "eui.0025388b91b2a1c3" });
  expect(nvmeWwid("e4d25c6f-0000-0001-0025-388b91b2a1c3", "00 25 38 8b 91 b2 a1 c3")).toBe(
    "eui.e4d25c6f000000010025388b91b2a1c3",
  );
  expect(nvmeWwid(null, "00 00 00 00 00 00 00 00")).toBeUndefined();
});

it("reads a virtio disk's serial, which has no WWN", () => {
  expect(sysfsIdentity(disk({ serial: "VIRTIO-01  \n" }))).toEqual({ serial: "VIRTIO-01" });
});

it("finds nothing on a disk that keeps neither", () => {
  expect(sysfsIdentity(disk({}))).toEqual({});
});
