// Why the planner leaves a disk out, as a value: the planner decides on the cause's kind,
// and the words the operator reads (`plan`, the menu, a refusal) are made from it here,
// once.
import { formatSizeShort, MIB } from "../../common/size.ts";
import type { Claim } from "../../formats/claim.ts";
import type { Disk } from "../../hardware/disks/types.ts";
import type { LeftOutDisk } from "./types.ts";

/**
 * The smallest ESP on a disk of 4096-byte sectors. The ESP is FAT32 with one sector a
 * cluster in the disk's own sector size (the kernel and the firmware mount a FAT only in
 * the disk's logical block size), and FAT32 needs 65,525 clusters: 256 MiB of 4 KiB sectors
 * falls short, which firmware reads as FAT16 and rejects. 260 MiB is also the size
 * Microsoft gives for the ESP of 4Kn drives.
 */
export const MIN_ESP_4KN = 260 * MIB;

type ClaimNames = Pick<Claim, "cluster" | "machine" | "complete">;

export type LeftOutCause =
  /** Another cluster's install, which this run may not erase. */
  | {
      readonly kind: "other-cluster";
      readonly claim: ClaimNames;
      readonly cluster: string;
      readonly wipe: boolean;
    }
  /** A liken install that is not this machine's, or a claim without names; a wipe takes it. */
  | { readonly kind: "liken-install"; readonly claim: ClaimNames | undefined }
  /** This machine's complete install, while another of its installs is being finished. */
  | { readonly kind: "installed"; readonly cluster: string; readonly machine: string }
  /** This machine's interrupted install other than the one being finished. */
  | { readonly kind: "other-partial" }
  | { readonly kind: "unreadable"; readonly reasons: readonly string[] }
  | { readonly kind: "foreign-data"; readonly reasons: readonly string[] }
  | { readonly kind: "ineligible"; readonly reasons: readonly string[] }
  | { readonly kind: "unsupported"; readonly reasons: readonly string[] }
  | { readonly kind: "not-needed" }
  | { readonly kind: "too-small"; readonly need: number }
  | { readonly kind: "sector-size"; readonly sector: number }
  | { readonly kind: "esp-too-small"; readonly esp: number }
  | { readonly kind: "no-match"; readonly selector: string };

/** A disk the planner left out, and why, before it is said in words. */
export interface LeftOut {
  readonly disk: Disk;
  readonly cause: LeftOutCause;
}

/** The causes of a disk that holds a liken install, whose words name what it holds first. */
export type HeldCause = Extract<
  LeftOutCause,
  { kind: "other-cluster" | "liken-install" | "installed" | "other-partial" }
>;

export function holdsInstall(cause: LeftOutCause): cause is HeldCause {
  return ["other-cluster", "liken-install", "installed", "other-partial"].includes(cause.kind);
}

/** What a disk that holds an install holds, without the advice: a refusal names it. */
export function holding(cause: HeldCause): string {
  switch (cause.kind) {
    case "other-cluster":
      return `${installOf(cause.claim)}, another cluster`;
    case "liken-install":
      return installOf(cause.claim);
    case "installed":
      return `holds the liken install of ${cause.cluster}/${cause.machine}`;
    case "other-partial":
      return "holds another interrupted install of this machine";
  }
}

function installOf(claim: ClaimNames | undefined): string {
  return claim
    ? `holds the liken install of ${claim.cluster}/${claim.machine}${claim.complete ? "" : " (partial)"}`
    : "holds a liken install";
}

/** The sentence `plan` and the menu print after the disk's path. */
export function whyLeftOut(cause: LeftOutCause): string {
  if (holdsInstall(cause)) {
    const advice = adviceFor(cause);
    return advice ? `${holding(cause)}: ${advice}` : holding(cause);
  }
  switch (cause.kind) {
    case "unreadable":
      return `could not be read (${cause.reasons.join(", ")}): liken never writes a disk it cannot read; check its health (dmesg)`;
    case "foreign-data":
      return `holds data liken did not write (${cause.reasons.join(", ")}): liken never writes it`;
    case "ineligible":
      return `cannot be a target (${cause.reasons.join(", ")})`;
    case "unsupported":
      return `needs a driver the release cannot load at boot (${cause.reasons.join(", ")})`;
    case "not-needed":
      return "not needed: every role fits on the disks above";
    case "too-small":
      return `too small for the system partitions (needs ${formatSizeShort(cause.need + 2 * MIB)})`;
    case "sector-size":
      return `has ${cause.sector}-byte sectors: UEFI firmware boots only from 512- and 4096-byte sectors`;
    case "esp-too-small":
      return `has 4096-byte sectors, where an ESP of ${formatSizeShort(cause.esp)} is too small for FAT32 (at least ${formatSizeShort(MIN_ESP_4KN)})`;
    case "no-match":
      return `does not match system_disk ${cause.selector}`;
  }
}

function adviceFor(cause: HeldCause): string | undefined {
  switch (cause.kind) {
    case "other-cluster":
      return cause.wipe
        ? `wipe and reinstall erases only ${cause.cluster}'s disks (--wipe-cluster ${cause.claim.cluster} erases it)`
        : "liken leaves it alone";
    case "liken-install":
    case "installed":
      return "use wipe and reinstall to replace it";
    case "other-partial":
      return undefined;
  }
}

/** The left-out disks as the layout and a refusal carry them, each cause in words. */
export function inWords(leftOut: readonly LeftOut[]): LeftOutDisk[] {
  return leftOut.map(({ disk, cause }) => ({
    path: disk.path,
    verdict: disk.verdict,
    reasons: disk.reasons,
    why: whyLeftOut(cause),
  }));
}
