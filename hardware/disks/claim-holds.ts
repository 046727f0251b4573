// Whether a valid claim still speaks for the disk. The claim sits outside every partition,
// so it survives repartitioning, mkfs and wipefs -a: a claim alone proves only that liken
// once wrote the disk. It counts while the disk is still what liken wrote:
// (a) its GPT (the primary, or the backup when the primary is gone) is the one the install
//     wrote: the disk GUID and every partition's UUID derive from the claim's install id,
//     every type is liken's, and everything found on the disk lies in a partition whose
//     type liken fills with it; or
// (b) it has no partition table at all, not even an implausible one, and nothing
//     recognizable on it: an install stopped before its table, or an erase (wipe and
//     reinstall) stopped after it (installer/erase.ts).
// A primary GPT that is implausible (torn by a stop while it was written or erased) does
// not keep a backup that is the install's own from counting.
// Anything else is `liken-claim:stale`: the disk is foreign and wipe leaves it alone.

import type { Claim } from "../../formats/claim.ts";
import type { Gpt } from "../../formats/gpt.ts";
import { PARTITION_TYPES } from "../../formats/gpt-types.ts";
import { diskIndexOf, partitionUuidFor } from "../../formats/install-ids.ts";
import type { ContentProbe, DiskFacts } from "./types.ts";

// What liken (the installer, or the installed machine) puts in each kind of partition:
// storage roles are the machine's to format as it likes.
const ALLOWED: Record<string, readonly string[] | "any"> = {
  [PARTITION_TYPES.esp]: ["vfat"],
  [PARTITION_TYPES.slot]: ["erofs"],
  [PARTITION_TYPES.state]: ["ext4"],
  [PARTITION_TYPES.journal]: [],
  [PARTITION_TYPES.storage]: "any",
};

// What wipefs reports for the GPT itself.
const TABLE_TYPES = new Set(["gpt", "PMBR"]);

export function claimHolds(facts: DiskFacts, probe: ContentProbe, claim: Claim): boolean {
  const found = [
    ...probe.signatures.map((s) => ({ type: s.type, offset: s.offset })),
    ...probe.found.map((f) => ({ type: f.type, offset: f.offset })),
  ];
  const table = probe.gpt ?? probe.backupGpt;
  if (!table) {
    return (
      probe.mbrPartitions === 0 &&
      !probe.implausible?.length &&
      facts.partitions.length === 0 &&
      found.every((f) => f.type === "PMBR")
    );
  }
  return probe.mbrPartitions === 0 && tableIsOurs(table, claim) && found.every(inPlace(table));
}

function tableIsOurs(table: Gpt, claim: Claim): boolean {
  const index = diskIndexOf(claim.installId, table.diskGuid);
  if (index === undefined) return false;
  return table.entries.every(
    (e) =>
      ALLOWED[e.typeGuid] !== undefined &&
      e.uuid === partitionUuidFor(claim.installId, index, e.name),
  );
}

function inPlace(table: Gpt) {
  return (f: { type: string; offset: number }): boolean => {
    const entry = table.entries.find((e) => f.offset >= e.start && f.offset < e.start + e.size);
    if (!entry) return TABLE_TYPES.has(f.type);
    const allowed = ALLOWED[entry.typeGuid];
    return allowed === "any" || (allowed?.includes(f.type) ?? false);
  };
}
