// Builds the ESP as a FAT32 image file: systemd-boot as the removable-media loader, its
// loader.conf, and slot A's kernel, initrd and entry. The installer then copies the image's
// data blocks into the ESP partition.
import { truncate, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { archFacts } from "../common/arch.ts";
import {
  entryFileName,
  entryText,
  loaderConf,
  SLOT_UKI,
  type Slot,
  slotDir,
} from "../formats/boot-entries.ts";
import { RELEASE_UKI, type ReleaseInfo } from "../formats/release.ts";
import { makeVfat } from "../tools/mkfs.ts";
import { copyIntoFat, makeFatDirs } from "../tools/mtools.ts";

export interface EspInput {
  readonly image: string;
  readonly size: number;
  /** Scratch folder for the small text files. */
  readonly workDir: string;
  readonly release: ReleaseInfo;
  readonly slot: Slot;
  readonly rootPartUuid: string;
  /** The ESP partition's UUID: its first 8 hex digits become the FAT volume id. */
  readonly partUuid: string;
  /**
   * The disk's logical sector size: the FAT's own. Linux and the firmware mount a FAT whose
   * sectors are smaller than the disk's as unreadable (on a 4Kn disk: "logical sector size
   * too small for device").
   */
  readonly sectorSize: number;
}

export async function buildEsp(input: EspInput): Promise<void> {
  // An image not there yet needs no truncating: writeFile makes it.
  await truncate(input.image, 0).catch(() => undefined);
  await writeFile(input.image, "");
  await truncate(input.image, input.size);
  await makeVfat(input.image, {
    label: "LIKEN-ESP",
    volumeId: input.partUuid.slice(0, 8),
    sectorSize: input.sectorSize,
  });
  const dir = slotDir(input.slot);
  await makeFatDirs(input.image, ["EFI", "EFI/BOOT", "loader", "loader/entries", "liken", dir]);
  const loader = join(input.workDir, "loader.conf");
  const entry = join(input.workDir, "entry.conf");
  await writeFile(loader, loaderConf());
  const { release } = input;
  await writeFile(
    entry,
    entryText(
      input.slot,
      release.version,
      { partUuid: input.rootPartUuid, verity: release.verity },
      "proven",
      release.signed,
      release.arch,
    ),
  );
  // A signed release's files are copied as they are: a signature covers every byte.
  const boot: [string, string][] = release.signed
    ? [[join(release.dir, RELEASE_UKI), `${dir}/${SLOT_UKI}`]]
    : [
        [join(release.dir, "vmlinuz"), `${dir}/vmlinuz`],
        [join(release.dir, "initrd.img"), `${dir}/initrd.img`],
      ];
  const files: [string, string][] = [
    // The removable-media loader: firmware boots it with no boot entry, and BootNext names it.
    [
      join(release.dir, archFacts(release.arch).systemdBoot),
      archFacts(release.arch).removableLoader,
    ],
    [loader, "loader/loader.conf"],
    [entry, `loader/entries/${entryFileName(input.slot, release.version)}`],
    ...boot,
    // The slot's release.toml: the version and the hashes `inspect` checks the slot against.
    [join(release.dir, "release.toml"), `${dir}/release.toml`],
  ];
  for (const [source, target] of files) await copyIntoFat(input.image, source, target);
}
