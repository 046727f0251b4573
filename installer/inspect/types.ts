// What `inspect` reads from an installed disk: the `inspect --json` contract (docs/design.md
// section 2), and docs/inspect.md field by field. Absent or unreadable parts are null.

import type { NetworkDeclaration } from "../../common/network-declaration.ts";
import type { Slot } from "../../formats/boot-entries.ts";
import type { Identity } from "../../formats/identity.ts";
import type { InstallerStatus } from "../../formats/installer-status.ts";
import type { CrashRecord } from "../../formats/journal-records.ts";
import type { MachineStatus, NetworkStatus } from "../../formats/machine-status.ts";
import type { SpecDocument } from "../../formats/spec-document.ts";
import type { ClaimSummary } from "../../hardware/disks/types.ts";

export interface InspectedClaim extends ClaimSummary {
  /** How many of the two copies verify: 1 means a write was torn, or a copy was overwritten. */
  readonly copies: 1 | 2;
}

export interface InspectedPartition {
  readonly number: number;
  readonly label: string;
  /** Bytes from the start of the disk. */
  readonly start: number;
  readonly size: number;
  readonly typeGuid: string;
  readonly partUuid: string;
  /** It begins with a LUKS2 header ([encryption]): what it holds is read on the machine only. */
  readonly encrypted?: true;
}

export interface InspectedSlot {
  /** The version in the slot's release.toml on the ESP; null when the slot holds no release. */
  readonly version: string | null;
  /** Whether the slot's first bytes hash to release.toml's rootfs.img sha256; null without one. */
  readonly hashMatches: boolean | null;
}

export interface InspectedEntry {
  readonly fileName: string;
  /** null for a file in loader/entries that is not a liken entry. */
  readonly slot: Slot | null;
  readonly version: string | null;
  /** Boot counting: null when the name carries no counter (the entry is proven). */
  readonly triesLeft: number | null;
  readonly triesDone: number | null;
}

export interface InspectedJournal {
  /** Magic, format version and CRC of the header verify. */
  readonly valid: boolean;
  readonly installId: string | null;
  /** Intact crash records of this install; 0 when the header is not valid or names another install. */
  readonly records: number;
  /** Records torn by a power loss or damaged (length or CRC wrong), skipped; 0 as for records. */
  readonly skipped: number;
}

/** The machine's network: as the install declared it, and as its last boot held it. */
export interface InspectedNetwork {
  /**
   * identity.json's `network`, what reads of it (formats/identity.ts readNetworkDeclaration);
   * null when identity.json has none (an install from before networks) or cannot be read.
   */
  readonly declared: NetworkDeclaration | null;
  /** Why each part of it left out does not read; the boot agent applies none of a network with one. */
  readonly declaredErrors: readonly string[];
  /**
   * `status.network` as the status document holds it, of any type an older release or a
   * damaged file gave it; null before the first boot, or when the boot applied no network.
   */
  readonly lastBoot: NetworkStatus | null;
}

/**
 * Closed-enum notes on what could not be read: `gpt:none`, `gpt:implausible:FLAW`,
 * `gpt:backup-implausible:FLAW`, `gpt:backup-only`, `partition-missing:LABEL`,
 * `esp:unreadable`, `state:unreadable`, `unparseable:FILE`, `journal:invalid`,
 * `journal:other-install`, `slot-too-small:SLOT`, `slot-unreadable:SLOT`.
 */
export type Problem = string;

export interface Inspection {
  readonly path: string;
  readonly size: number;
  readonly claim: InspectedClaim;
  readonly partitions: readonly InspectedPartition[];
  readonly slots: Readonly<Record<Slot, InspectedSlot>>;
  /** Files in the ESP's loader/entries, by name; null when the ESP cannot be read. */
  readonly entries: readonly InspectedEntry[] | null;
  readonly loaderConf: string | null;
  /**
   * The state partition's documents (formats/state-partition.ts), each as its reader in
   * formats/ reads it; a field of another release or a damaged file may be of another type.
   * The machine's status: null before its first boot.
   */
  readonly status: MachineStatus | null;
  readonly installer: InstallerStatus | null;
  readonly identity: Identity | null;
  readonly spec: SpecDocument | null;
  readonly network: InspectedNetwork;
  /** null when the disk has no liken-journal partition. */
  readonly journal: InspectedJournal | null;
  /**
   * The crash journal's records, newest first (formats/journal-records.ts), when the journal's
   * header names this install; empty otherwise.
   */
  readonly crashes: readonly CrashRecord[];
  readonly problems: readonly Problem[];
}
