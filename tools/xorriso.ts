// xorriso(1) in its mkisofs emulation: the stick as a hybrid ISO. The layout is the one
// xorrisofs(1) documents for an EFI-only hybrid image ("El Torito Bootable ISO images",
// "System Area"): the ESP image is appended as GPT partition 2 and is, by the interval
// reader path, the El Torito EFI boot image too, so a CD drive (a BMC's virtual media)
// boots it by El Torito and a USB disk written with dd boots it as a GPT ESP. The payload
// is the ISO 9660 filesystem, which both see at the start of the medium.
//
// El Torito counts a boot image's 512-byte sectors in 16 bits, so it names 32 MiB at most.
// A larger ESP (arm64's: its kernel is an uncompressed 33 MB Image) gets a count of 0, and
// edk2 then takes the image to run to the end of the ISO 9660 volume, which an appended
// partition lies past: the firmware finds no loader on the CD. Such an ESP goes inside the
// volume (hidden from its directories) and its GPT partition points there (`-efi-boot-part
// --efi-boot-image`), so a CD and a USB disk boot it as they boot the appended one.
import { stat } from "node:fs/promises";
import { run } from "./exec.ts";

export interface HybridIso {
  readonly out: string;
  /** The folder that becomes the ISO 9660 filesystem (with Rock Ridge names and modes). */
  readonly tree: string;
  /** A FAT image of the ESP. */
  readonly esp: string;
  readonly volumeLabel: string;
  /** Every timestamp, the volume's UUID and the GPT's GUIDs derive from it. */
  readonly epoch: number;
}

/** The most El Torito's 16-bit count of 512-byte sectors can name. */
export const EL_TORITO_MAX_BYTES = 0xffff * 512;

/** Where the ESP image lies in the ISO 9660 volume when it is too large to append. */
export const ESP_IN_VOLUME = "/efi.img";

export async function makeHybridIso(iso: HybridIso): Promise<void> {
  const inVolume = (await stat(iso.esp)).size > EL_TORITO_MAX_BYTES;
  const esp = inVolume
    ? [
        "-graft-points",
        // -hide matches a file's path on the host, the image's here.
        ...["-hide", iso.esp],
        ...["-e", ESP_IN_VOLUME.slice(1), "-no-emul-boot"],
        ...["-efi-boot-part", "--efi-boot-image"],
      ]
    : [
        ...["-append_partition", "2", "0xef", iso.esp],
        "-appended_part_as_gpt",
        ...["-e", "--interval:appended_partition_2:all::", "-no-emul-boot"],
      ];
  await run(
    "xorriso",
    [
      ...["-as", "mkisofs"],
      ...["-o", iso.out],
      "-R", // Rock Ridge: long names, modes
      ...["-iso-level", "3"], // files past 4 GiB (a large release's root) in several extents
      ...["-V", iso.volumeLabel],
      ...esp,
      // The tree's own modes, owned by root, every file dated at the epoch (by default
      // SOURCE_DATE_EPOCH leaves files their mtimes on disk).
      ...["-uid", "0", "-gid", "0"],
      ...["--set_all_file_dates", isoTimestring(iso.epoch)],
      ...(inVolume ? [`${ESP_IN_VOLUME}=${iso.esp}`, `/=${iso.tree}`] : [iso.tree]),
    ],
    // SOURCE_DATE_EPOCH (xorriso 1.5.2 and later) fixes every date, the volume UUID and the
    // GPT GUIDs derived from it, so two builds of the same inputs give the same bytes.
    { timeoutMs: 600_000, env: { SOURCE_DATE_EPOCH: String(iso.epoch), TZ: "UTC" } },
  );
}

/** `2026120200000000`: xorriso's YYYYMMDDhhmmsscc timestring, read in TZ (UTC here). */
function isoTimestring(epoch: number): string {
  return `${new Date(epoch * 1000).toISOString().replace(/\D/g, "").slice(0, 14)}00`;
}
