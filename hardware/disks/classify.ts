// The verdict on one disk, from its facts and probe: a pure function, so every rule is
// tested without a disk. A disk is blank only when every probe ran and found nothing; a
// probe that failed makes it foreign (fail closed).
import { MIB } from "../../common/size.ts";
import { summarizeClaim } from "../../formats/claim.ts";
import { claimHolds } from "./claim-holds.ts";
import type { ContentProbe, Disk, DiskFacts, Verdict } from "./types.ts";
import { wwnKey } from "./wwn.ts";

/** Disks smaller than this hold no useful liken partition. */
export const MIN_DISK_SIZE = 512 * MIB;

const VIRTUAL_TYPES = new Set(["dm", "md", "zram", "lvm", "crypt", "mpath", "rom"]);
const OUR_LABEL = /^liken-/;

/**
 * The verdict on one disk. `others` are the other disks found with it: one with the same
 * WWN is the same disk seen through a second path (multipath, dual-port SAS). Writing it
 * through either while the other exists is never safe, and an install would claim it
 * twice, so both paths are ineligible.
 */
export function classifyDisk(
  facts: DiskFacts,
  probe: ContentProbe,
  others: readonly DiskFacts[] = [],
): Disk {
  const ineligible = [
    ...ineligibleReasons(facts),
    ...otherPaths(facts, others).map((p) => `multipath:${p}`),
  ];
  // A disk that can never be a target (the stick, a removable or read-only disk) needs no
  // driver at boot: naming what it would lack is noise on the menu's screens.
  const unsupported =
    ineligible.length > 0 ? [] : facts.missingModules.map((m) => `missing-driver:${m}`);
  const inUse = inUseReasons(facts, probe);
  const content = contentReasons(facts, probe);
  const found = probe.claim.state === "valid" ? probe.claim.claim : undefined;
  const claim = found && claimHolds(facts, probe, found) ? found : undefined;
  const claimReasons =
    probe.claim.state === "conflict"
      ? ["liken-claim:conflict"]
      : claim
        ? [`liken-claim:${claim.complete ? "complete" : "partial"}`]
        : found
          ? ["liken-claim:stale"]
          : [];
  const failed = probe.failed.map((p) => `probe-failed:${p}`);

  let verdict: Verdict;
  if (ineligible.length > 0) verdict = "ineligible";
  else if (unsupported.length > 0) verdict = "unsupported";
  else if (claim && failed.length === 0) verdict = "liken";
  else if (inUse.length + content.length + failed.length + claimReasons.length > 0)
    verdict = "foreign";
  else verdict = "blank";

  return {
    path: facts.path,
    size: facts.size,
    verdict,
    // The stick itself: one reason, not the signatures of its own image on every screen.
    reasons: facts.bootMedium
      ? ["boot-medium"]
      : [...ineligible, ...unsupported, ...claimReasons, ...inUse, ...content, ...failed],
    ...(claim ? { claim: summarizeClaim(claim) } : {}),
    ...(facts.model ? { model: facts.model } : {}),
    ...(facts.serial ? { serial: facts.serial } : {}),
    ...(facts.wwn ? { wwn: facts.wwn } : {}),
    ...(facts.transport ? { transport: facts.transport } : {}),
    logicalSectorSize: facts.logicalSectorSize,
    physicalSectorSize: facts.physicalSectorSize,
    rotational: facts.rotational,
    kind: facts.kind,
  };
}

// An empty or all-zero WWN names no disk: bridges and firmwares that report one give it
// to every disk they serve.
function otherPaths(facts: DiskFacts, others: readonly DiskFacts[]): string[] {
  const key = wwnKey(facts.wwn);
  if (key === undefined) return [];
  return others.filter((o) => o.path !== facts.path && wwnKey(o.wwn) === key).map((o) => o.path);
}

function ineligibleReasons(f: DiskFacts): string[] {
  const reasons: string[] = [];
  if (f.deviceType === "part") reasons.push("partition");
  if (VIRTUAL_TYPES.has(f.deviceType) || /^raid/.test(f.deviceType))
    reasons.push(`virtual-device:${f.deviceType}`);
  if (f.bootMedium) reasons.push("boot-medium");
  if (f.readOnly) reasons.push("read-only");
  if (f.removable || f.transport === "usb") reasons.push("removable");
  if (f.size < MIN_DISK_SIZE) reasons.push("too-small");
  return reasons;
}

function inUseReasons(f: DiskFacts, p: ContentProbe): string[] {
  return [
    ...f.mounts.map((m) => `mounted:${m}`),
    ...(f.swap ? ["swap"] : []),
    ...f.holders.map((h) => `holder:${h}`),
    ...(p.exclusive === false ? ["busy"] : []),
  ];
}

function contentReasons(f: DiskFacts, p: ContentProbe): string[] {
  const reasons: string[] = [];
  const add = (reason: string) => {
    if (!reasons.includes(reason)) reasons.push(reason);
  };
  for (const s of p.signatures) {
    add(
      s.usage === "partition-table"
        ? `partition-table:${s.type}`
        : `signature:${s.type}@${s.offsetText}`,
    );
  }
  // What blkid found at a partition start, unless wipefs already named it inside the partition.
  for (const x of p.found) {
    const named = p.signatures.some(
      (s) => s.type === x.type && s.offset >= x.offset && s.offset < x.offset + MIB,
    );
    if (!named)
      add(
        x.usage === "partition-table"
          ? `partition-table:${x.type}@0x${x.offset.toString(16)}`
          : `signature:${x.type}@0x${x.offset.toString(16)}`,
      );
  }
  if (p.implausible?.length) add("partition-table:implausible");
  const table = p.gpt ?? p.backupGpt;
  if (f.partitions.length + p.mbrPartitions + (table?.entries.length ?? 0) > 0) add("partitions");
  if (p.claim.state !== "valid" && table?.entries.some((x) => OUR_LABEL.test(x.name))) {
    add("liken-labels-without-claim");
  }
  if (p.headZero === false) add("nonzero-data:head");
  if (p.middleZero === false) add("nonzero-data:middle");
  if (p.tailZero === false) add("nonzero-data:tail");
  return reasons;
}
