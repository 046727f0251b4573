// A disk as the installer sees it: what discovery found, what probing its contents found,
// and the verdict that decides whether liken may write it.

import type { ClaimVerdict } from "../../formats/claim.ts";
import type { Gpt } from "../../formats/gpt.ts";
import type { Signature } from "../../tools/wipefs.ts";

export type Verdict = "blank" | "liken" | "foreign" | "ineligible" | "unsupported";

/** What the machine says about a disk, before any of its bytes are read. */
export interface DiskFacts {
  readonly path: string;
  /** Kernel name ("sda", "loop3") or the file name of an image. */
  readonly name: string;
  readonly kind: "block" | "file";
  /** lsblk's TYPE ("disk", "loop", "part", ...), "zram" for zram, or "file". */
  readonly deviceType: string;
  readonly size: number;
  readonly logicalSectorSize: number;
  readonly physicalSectorSize: number;
  readonly rotational: boolean;
  readonly readOnly: boolean;
  readonly removable: boolean;
  readonly transport?: string;
  readonly model?: string;
  readonly serial?: string;
  readonly wwn?: string;
  /** Devices stacked on the disk or its partitions (dm, md, bcache, and loop devices on a file). */
  readonly holders: readonly string[];
  /** Mount points of the disk and its partitions ("[SWAP]" excluded). */
  readonly mounts: readonly string[];
  readonly swap: boolean;
  /** Partitions the kernel knows: path and start offset in bytes. */
  readonly partitions: readonly { readonly path: string; readonly start: number }[];
  /** The disk the running system booted from (the stick). */
  readonly bootMedium: boolean;
  /** Modules its driver chain needs that the release cannot load at boot (the hardware report fills it). */
  readonly missingModules: readonly string[];
}

export type ProbeKind = "wipefs" | "blkid" | "read" | "open";
export type ProbeFailure = ProbeKind | `${ProbeKind}:${string}`;

/** What blkid's low-level probe found at a partition start (hardware/disks/probe.ts). */
export interface FoundAtStart {
  readonly type: string;
  readonly usage: string;
  /** The start probed, in bytes from the start of the disk. */
  readonly offset: number;
}

/** What reading the disk found. A probe that failed is named in `failed`, and its field is empty. */
export interface ContentProbe {
  /** What wipefs found on the disk and on the kernel's partitions, at disk offsets. */
  readonly signatures: readonly Signature[];
  /** What blkid found at the usual partition starts and at those the tables name. */
  readonly found: readonly FoundAtStart[];
  /** The primary GPT, when one verifies. */
  readonly gpt?: Gpt;
  /** The backup GPT, when one verifies. */
  readonly backupGpt?: Gpt;
  /** Partitions an MBR table lists, logical ones included (the GPT's protective entry not counted). */
  readonly mbrPartitions: number;
  /** Each table that broke a rule, and which ("gpt:entry-count", "mbr:chain-loop"). */
  readonly implausible?: readonly string[];
  /** The first 16 MiB, the last MiB, the samples between them; undefined: not read. */
  readonly headZero?: boolean;
  readonly tailZero?: boolean;
  readonly middleZero?: boolean;
  /** Whether an exclusive open succeeded (block devices only). */
  readonly exclusive?: boolean;
  readonly claim: ClaimVerdict;
  /** Each failed probe, with the errno when the system gave one: "read:EIO". */
  readonly failed: readonly ProbeFailure[];
}

export interface ClaimSummary {
  readonly cluster: string;
  readonly machine: string;
  readonly installId: string;
  readonly release: string;
  readonly use: "system" | "storage";
  readonly complete: boolean;
  readonly createdAt: string;
  /** On a member of a mirrored system disk only: its place, and the other member. */
  readonly mirror?: {
    readonly member: 1 | 2;
    readonly of: 2;
    readonly peer: { readonly serial?: string; readonly wwn?: string; readonly path?: string };
  };
}

/** A classified disk: the `disks --json` contract (docs/design.md section 2). */
export interface Disk {
  readonly path: string;
  readonly size: number;
  readonly verdict: Verdict;
  readonly reasons: readonly string[];
  readonly claim?: ClaimSummary;
  readonly model?: string;
  readonly serial?: string;
  readonly wwn?: string;
  readonly transport?: string;
  readonly logicalSectorSize: number;
  readonly physicalSectorSize: number;
  readonly rotational: boolean;
  readonly kind: "block" | "file";
}
