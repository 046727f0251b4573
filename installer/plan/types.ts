// The layout an install writes: a value made by planLayout() and read by the executor, the
// menu's confirmation screen and `plan --json` alike.
import type { ClaimMirror, DiskUse } from "../../formats/claim.ts";
import type { Verdict } from "../../hardware/disks/types.ts";

export type PartitionContent = "esp" | "slot-a" | "slot-b" | "journal" | "state" | "storage";

export interface PlannedPartition {
  /** 1-based entry in the GPT. */
  readonly number: number;
  /** GPT partition name: liken-esp, liken-a, liken-b, liken-journal, liken-state, liken-<role>. */
  readonly label: string;
  readonly content: PartitionContent;
  /** The storage role, for content "storage". */
  readonly role?: string;
  readonly typeGuid: string;
  /** PARTUUID, derived from the install id so a resumed install writes the same table (inspect's name for it too). */
  readonly partUuid: string;
  /** Offset and size in bytes, both multiples of 1 MiB. */
  readonly start: number;
  readonly size: number;
}

/** What happens to a disk: written from blank, an interrupted install finished, or a liken disk erased first. */
export type DiskAction = "write" | "resume" | "erase-and-write";

export interface PlannedDisk {
  readonly path: string;
  readonly kind: "block" | "file";
  readonly use: DiskUse;
  readonly action: DiskAction;
  readonly size: number;
  readonly sectorSize: number;
  readonly model?: string;
  readonly serial?: string;
  readonly wwn?: string;
  /** The install id of the claim the disk carried when planned (resume, erase-and-write). */
  readonly claimInstallId?: string;
  /** The GPT's disk GUID. */
  readonly tableId: string;
  readonly partitions: readonly PlannedPartition[];
  /** Bytes left unallocated between the last partition and the end of the usable area. */
  readonly free: number;
  /** On the two disks of a mirrored system disk only. */
  readonly mirror?: PlannedMirror;
}

/** A system disk's place in a mirror, and the other member, as its claim will say. */
export type PlannedMirror = ClaimMirror;

/** A disk that is not part of the layout, and why. */
export interface LeftOutDisk {
  readonly path: string;
  readonly verdict: Verdict;
  readonly reasons: readonly string[];
  readonly why: string;
}

import type { EncryptionSettings } from "../../manifest/types.ts";

export interface Layout {
  readonly cluster: string;
  readonly machine: string;
  readonly release: string;
  readonly installId: string;
  readonly wipe: boolean;
  /** Why the system disk is the one it is, in a sentence. */
  readonly systemDiskWhy: string;
  readonly disks: readonly PlannedDisk[];
  readonly leftOut: readonly LeftOutDisk[];
  /**
   * [encryption]: the state partition and every storage role are LUKS2 volumes whose key
   * this machine's TPM seals (docs/design.md section 3).
   */
  readonly encryption?: EncryptionSettings;
}

/** Closed-enum reasons a plan cannot be made; the installer's status document uses them too. */
export type PlanFailureReason =
  | "UnknownMachine"
  | "NoEligibleDisk"
  | "DiskNotBlank"
  | "DiskNotLiken"
  | "MirrorMemberMissing"
  | "NoTpm"
  | "RecoveryKeyNowhere"
  | "OtherArch"
  | "DiskTooSmall"
  | "DiskBusy"
  | "DiskChanged"
  | "SectorSizeUnsupported"
  | "MissingDriver"
  | "ReleaseTooLarge";

export interface PlanFailure {
  readonly reason: PlanFailureReason;
  /** What is wrong. */
  readonly message: string;
  /** What to do. */
  readonly hint: string;
  /** Every disk considered, and why it was left out. */
  readonly considered: readonly LeftOutDisk[];
}

export type PlanResult =
  | { readonly ok: true; readonly layout: Layout }
  | { readonly ok: false; readonly failure: PlanFailure };
