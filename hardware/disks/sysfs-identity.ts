// A whole disk's serial and WWN from sysfs alone, for where udev keeps no database (the
// stick). Each bus keeps them elsewhere; the values read as udev would give them on the
// same disk (60-persistent-storage.rules, scsi_id), so a manifest written on either side
// selects the same disk.
import { vpdSerial, vpdWwn, wwnOfScsiWwid } from "./vpd.ts";

export interface DiskIdentity {
  readonly serial?: string;
  readonly wwn?: string;
}

/** The disk's sysfs files by path below /sys/block/NAME; null for one that is not there. */
export interface SysfsFiles {
  text(file: string): string | null;
  bytes(file: string): Uint8Array | null;
}

/** Serial and WWN of a whole disk, read lazily: each bus stops at its own files. */
export function sysfsIdentity(files: SysfsFiles): DiskIdentity {
  // SCSI, SAS, virtio-scsi and SATA behind libata: the VPD pages the kernel read at probe.
  const pg80 = files.bytes("device/vpd_pg80");
  const pg83 = files.bytes("device/vpd_pg83");
  if (pg80 || pg83) {
    return identity(
      pg80 ? vpdSerial(pg80) : undefined,
      (pg83 ? vpdWwn(pg83) : undefined) ?? wwnOfScsiWwid(files.text("device/wwid")),
    );
  }
  // NVMe: udev's ID_WWN is the namespace's wwid as the kernel writes it; the serial is
  // the controller's, which the listing reads as lsblk does (device/serial).
  const nvme = files.text("wwid") ?? nvmeWwid(files.text("nguid"), files.text("eui"));
  if (nvme) return identity(undefined, nvme.trim());
  // virtio-blk: a serial (QEMU's serial=), never a WWN.
  return identity(files.text("serial")?.replace(/\s+/g, " ").trim(), undefined);
}

/**
 * What the kernel's NVMe wwid would say, from the namespace's nguid (`%pU`) or eui
 * (`%8ph`: hex bytes and spaces), for a kernel without the wwid file: `eui.` and the
 * identifier's hex, the first that is not all zeros (drivers/nvme/host/core.c, wwid_show).
 */
export function nvmeWwid(nguid: string | null, eui: string | null): string | undefined {
  for (const value of [nguid, eui]) {
    const hex = value?.replace(/[-\s]/g, "").toLowerCase() ?? "";
    if (/^[0-9a-f]+$/.test(hex) && /[1-9a-f]/.test(hex)) return `eui.${hex}`;
  }
  return undefined;
}

function identity(serial: string | undefined, wwn: string | undefined): DiskIdentity {
  return { ...(serial ? { serial } : {}), ...(wwn ? { wwn } : {}) };
}
