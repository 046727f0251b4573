// A SCSI disk's serial and WWN from its VPD pages as the kernel keeps them in sysfs
// (device/vpd_pg80, device/vpd_pg83: each page whole, its 4-byte header included). libata
// serves the same pages for SATA disks (ata_scsiop_inq_80, ata_scsiop_inq_83), so one
// parser covers SAS, SCSI, virtio-scsi and AHCI. The results read as udev's scsi_id prints
// them, so a disk shows the same serial and WWN with udev and without.

/** The PRODUCT SERIAL NUMBER of the Unit Serial Number VPD page (0x80), blanks normalized. */
export function vpdSerial(page: Uint8Array): string | undefined {
  const body = pageBody(page, 0x80);
  if (!body) return undefined;
  // ASCII by the standard; a NUL ends what some devices pad with, and anything unprintable
  // would only garble a selector.
  const end = body.indexOf(0);
  const text = String.fromCharCode(...(end === -1 ? body : body.subarray(0, end)))
    .replace(/[^\x20-\x7e]/g, " ")
    .replace(/\s+/g, " ")
    .trim();
  return text || undefined;
}

// NAA types in the order systemd's scsi_id takes them (src/udev/scsi_id/scsi_serial.c,
// id_search_list): IEEE Registered Extended, then IEEE Registered, then any other NAA.
const NAA_RANK: Readonly<Record<number, number>> = { 6: 0, 5: 1 };

/**
 * The logical unit's NAA name in the Device Identification VPD page (0x83), written `0x`
 * and the lowercase hex of every byte of the designator: what lsblk's WWN column shows, from
 * udev's ID_WWN_WITH_EXTENSION (scsi_id's check_fill_0x83_id keeps the first 8 bytes as
 * ID_WWN and the next 8 as the vendor extension; scsi_id.c prints both after `0x`). NAA 5
 * gives 16 digits, NAA 6 32. Undefined without a binary NAA designator for the logical
 * unit, or when it is all zeros: that names no disk.
 */
export function vpdWwn(page: Uint8Array): string | undefined {
  const body = pageBody(page, 0x83);
  if (!body) return undefined;
  let best: { rank: number; id: Uint8Array } | undefined;
  for (let at = 0; at + 4 <= body.length; ) {
    const [flags = 0, kind = 0, , length = 0] = body.subarray(at, at + 4);
    const id = body.subarray(at + 4, at + 4 + length);
    at += 4 + length;
    if (id.length < length) break;
    // Binary (1), the logical unit (association 0), NAA (3): target ports and port groups
    // name a path, not the disk.
    if ((flags & 0x0f) !== 1 || ((kind >> 4) & 0x03) !== 0 || (kind & 0x0f) !== 3) continue;
    if (length === 0) continue;
    const rank = NAA_RANK[(id[0] ?? 0) >> 4] ?? 2;
    if (!best || rank < best.rank) best = { rank, id };
  }
  if (!best || best.id.every((b) => b === 0)) return undefined;
  return `0x${Buffer.from(best.id).toString("hex")}`;
}

/** The kernel's wwid of a SCSI disk (`naa.5000c500…`, device/wwid) as udev writes a WWN. */
export function wwnOfScsiWwid(wwid: string | null | undefined): string | undefined {
  const m = /^naa\.([0-9a-f]+)$/i.exec(wwid?.trim() ?? "");
  return m?.[1] && /[1-9a-f]/i.test(m[1]) ? `0x${m[1].toLowerCase()}` : undefined;
}

// The page's designators or serial, after its header: byte 1 names the page, bytes 2-3
// (big endian) the length that follows. A page that names another is no answer.
function pageBody(page: Uint8Array, code: number): Uint8Array | undefined {
  if (page.length < 4 || page[1] !== code) return undefined;
  const length = ((page[2] ?? 0) << 8) | (page[3] ?? 0);
  return page.subarray(4, Math.min(page.length, 4 + length));
}
