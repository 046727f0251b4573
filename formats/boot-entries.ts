// The ESP's systemd-boot configuration: loader.conf and one Boot Loader Specification entry
// per slot (uapi-group.org/specifications/specs/boot_loader_specification). Pure text, so the
// installer and the boot agent write exactly the same bytes.

import { type Arch, archFacts, DEFAULT_ARCH } from "../common/arch.ts";

export type Slot = "a" | "b";

/**
 * The one loader.conf: the installer's ESP and the stick's (one entry, nothing to choose, so
 * the same text serves it). No `default`: on systemd-boot 252 an exact default pins an entry
 * even after it fails its trial (systemd#31215).
 */
export function loaderConf(secureBootEnroll?: "manual"): string {
  return [
    "timeout 0",
    "editor no",
    "console-mode keep",
    // `manual`: systemd-boot 252 offers the keys in /loader/keys/auto from a menu entry when
    // the firmware is in setup mode (a stick built with enroll = "manual"); otherwise the
    // stick enrolls them from Linux (docs/image.md, Enrollment by the stick).
    ...(secureBootEnroll ? [`secure-boot-enroll ${secureBootEnroll}`] : []),
    "",
  ].join("\n");
}

/** `liken-a-1.0.0.conf`, or `liken-b-2.0.0+1-0.conf` for an entry with one try left. */
export function entryFileName(
  slot: Slot,
  version: string,
  tries?: { left: number; done: number },
): string {
  return `liken-${slot}-${version}${tries ? `+${tries.left}-${tries.done}` : ""}.conf`;
}

/** Where a slot's kernel and initrd live on the ESP. */
export function slotDir(slot: Slot): string {
  return `liken/${slot}`;
}

/** What the release's initramfs needs to mount a slot's root: which partition, checked against which hash tree. */
export interface SlotRoot {
  readonly partUuid: string;
  readonly verity: { readonly rootHash: string; readonly dataBlocks: number };
}

/**
 * The slot's partition and its verity root hash with the block count (where the hash tree
 * starts); console on the screen and the first serial port (docs/design.md section 3);
 * reboot 10 s after a panic.
 */
export function kernelOptions(slot: Slot, root: SlotRoot, arch: Arch = DEFAULT_ARCH): string {
  return [
    `root=PARTUUID=${root.partUuid.toLowerCase()}`,
    "ro",
    `liken.slot=${slot}`,
    `liken.verity=${root.verity.rootHash}:${root.verity.dataBlocks}`,
    ...consoleOptions(arch),
    "panic=10",
  ].join(" ");
}

/** The screen, then the arch's first serial port: the last one named is /dev/console. */
export function consoleOptions(arch: Arch): string[] {
  return ["console=tty0", `console=${archFacts(arch).serialConsole},115200`];
}

/**
 * Where an entry sorts. systemd-boot orders entries by sort-key (A to Z) before the version
 * (systemd src/boot/efi/boot.c, boot_entry_compare), so a trial goes first whatever its
 * version (a downgrade too), then the proven entry, then the one it replaced. An entry whose
 * tries are used up sorts after all of them.
 */
export type EntryRank = "trial" | "proven" | "previous";

export const SORT_KEYS: Readonly<Record<EntryRank, string>> = {
  trial: "liken-0-trial",
  proven: "liken-1-proven",
  previous: "liken-2-previous",
};

/**
 * The command line inside a signed release's unified kernel image: built before the release
 * has a slot, so it names the root only by its verity root hash; the initramfs finds the
 * slot from the entry systemd-boot chose (LoaderEntrySelected) on the disk it booted from.
 */
export function signedKernelOptions(verity: SlotRoot["verity"], arch: Arch = DEFAULT_ARCH): string {
  return [
    "ro",
    `liken.verity=${verity.rootHash}:${verity.dataBlocks}`,
    ...consoleOptions(arch),
    "panic=10",
  ].join(" ");
}

/**
 * An entry: the kernel and initrd with the slot's command line, or, for a signed release,
 * its unified kernel image, whose command line is inside its signature (no `options` line:
 * with Secure Boot on the stub would ignore it, and without, it would replace the signed one).
 * Title, version and sort-key stay here, so boot counting and ranking work the same.
 */
export function entryText(
  slot: Slot,
  version: string,
  root: SlotRoot,
  rank: EntryRank = "proven",
  signed = false,
  arch: Arch = DEFAULT_ARCH,
): string {
  const boot = signed
    ? [`efi /${slotDir(slot)}/${SLOT_UKI}`]
    : [
        `linux /${slotDir(slot)}/vmlinuz`,
        `initrd /${slotDir(slot)}/initrd.img`,
        `options ${kernelOptions(slot, root, arch)}`,
      ];
  return [
    `title liken ${version} (slot ${slot}${rank === "proven" ? "" : `, ${rank}`})`,
    `version ${version}`,
    `sort-key ${SORT_KEYS[rank]}`,
    ...boot,
    "",
  ].join("\n");
}

/** A signed release's unified kernel image in its slot's folder on the ESP. */
export const SLOT_UKI = "liken.efi";
