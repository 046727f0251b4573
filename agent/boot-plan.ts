// The boot agent's decisions (docs/design.md section 5) as pure functions of what it observed:
// which entry booted and whether it is a trial, what to do with the entries on the ESP, why
// a trial was rejected, and whether the spec's release is staged. The agent (main.ts) does
// the reading and the writing; everything it decides is decided here.
import { partitionLabel } from "../common/partition-labels.ts";
import { formatSize } from "../common/size.ts";
import { type EntryRank, entryFileName } from "../formats/boot-entries.ts";
import { parseEntryName } from "../formats/entry-name.ts";
import type {
  BootRecord,
  CrashRecord,
  Entry,
  InitramfsFailure,
  Rejection,
  RejectionReason,
  Slot,
  Spec,
  StagingRejectedReason,
} from "./types.ts";

/** A change to loader/entries on the ESP. */
export type EntryAction =
  | {
      readonly op: "write";
      readonly fileName: string;
      readonly slot: Slot;
      readonly version: string;
      readonly rank: EntryRank;
    }
  | { readonly op: "remove"; readonly fileName: string };

export interface BootFacts {
  readonly version: string;
  /** liken.slot= on the kernel command line. */
  readonly cmdlineSlot: Slot | null;
  /** systemd-boot's LoaderEntrySelected: the id of the entry it booted. */
  readonly loaderEntrySelected: string | null;
  /** systemd-boot's LoaderBootCountPath: set only when it counted this boot down. */
  readonly loaderBootCountPath: string | null;
  readonly entries: readonly Entry[];
}

/** Which slot, release and entry this boot came from; unknown when the loader and the kernel disagree. */
export type BootOrigin =
  | {
      readonly kind: "trial" | "proven";
      readonly slot: Slot;
      readonly version: string;
      /** The entry file as it is now; null when none names this slot and version. */
      readonly entry: Entry | null;
    }
  | { readonly kind: "unknown"; readonly reason: string };

export function otherSlot(slot: Slot): Slot {
  return slot === "a" ? "b" : "a";
}

/** Which slot and entry this boot came from: from the boot loader's variables, checked against the command line, never from a default. */
export function identifyBoot(facts: BootFacts): BootOrigin {
  const counted = countedEntry(facts.loaderBootCountPath);
  const fromLoader = entryFromLoaderId(facts.loaderEntrySelected) ?? counted;
  const slot = facts.cmdlineSlot;
  if (slot === null)
    return { kind: "unknown", reason: "no liken.slot= on the kernel command line" };
  if (fromLoader && fromLoader.slot !== slot)
    return {
      kind: "unknown",
      reason: `the boot loader chose slot ${fromLoader.slot} but the kernel command line says slot ${slot}`,
    };
  if (fromLoader && fromLoader.version !== facts.version)
    return {
      kind: "unknown",
      reason: `the boot loader chose release ${fromLoader.version} but slot ${slot} booted release ${facts.version}`,
    };
  const entry = facts.entries.find((e) => e.slot === slot && e.version === facts.version) ?? null;
  // LoaderBootCountPath outlives a trial whose image failed to start (the firmware refused
  // it, then started systemd-boot again, which booted the proven entry): it marks a trial
  // only when it names the entry booted now.
  const countedNow =
    counted !== undefined && counted.slot === slot && counted.version === facts.version;
  const trial = countedNow || (entry !== null && entry.triesLeft !== null);
  return { kind: trial ? "trial" : "proven", slot, version: facts.version, entry };
}

/** The entry LoaderBootCountPath (`\\loader\\entries\\NAME+L-D.conf`) names. */
function countedEntry(path: string | null) {
  return entryFromLoaderId(path?.split(/[\\/]/).pop() ?? null);
}

function entryFromLoaderId(id: string | null) {
  if (!id) return undefined;
  const name = id.toLowerCase().endsWith(".conf") ? id : `${id}.conf`;
  return parseEntryName(name);
}

/**
 * A trial entry systemd-boot did not count down (its tries left are above zero) is counted
 * here, so a reset during the trial cannot boot it again.
 */
export function exhaustTrial(entry: Entry): EntryAction[] {
  if (entry.triesLeft === null || entry.triesLeft === 0) return [];
  const fileName = entryFileName(entry.slot, entry.version, {
    left: 0,
    done: (entry.triesDone ?? 0) + 1,
  });
  return [
    { op: "write", fileName, slot: entry.slot, version: entry.version, rank: "trial" },
    { op: "remove", fileName: entry.fileName },
  ];
}

/**
 * Blessing a trial: the proven entry steps down to previous (first, so at no instant two
 * entries share the proven rank and the version alone would choose), the trial's entry is
 * written without a counter, and its counted file goes.
 */
export function blessActions(
  entries: readonly Entry[],
  slot: Slot,
  version: string,
): EntryAction[] {
  const blessedName = entryFileName(slot, version);
  const actions: EntryAction[] = [];
  for (const e of entries) {
    if (e.fileName === blessedName) continue;
    if (e.slot === slot) continue; // this slot's other entries are removed below
    if (e.triesLeft === null)
      actions.push({
        op: "write",
        fileName: e.fileName,
        slot: e.slot,
        version: e.version,
        rank: "previous",
      });
  }
  actions.push({ op: "write", fileName: blessedName, slot, version, rank: "proven" });
  for (const e of entries)
    if (e.slot === slot && e.fileName !== blessedName)
      actions.push({ op: "remove", fileName: e.fileName });
  // The other slot's failed or pending trials are over: this release is proven.
  for (const e of entries)
    if (e.slot !== slot && e.triesLeft !== null)
      actions.push({ op: "remove", fileName: e.fileName });
  return actions;
}

/** The entries of trials that used up their tries: every one is a rejected release. */
export function exhaustedTrials(entries: readonly Entry[], running: Slot): Entry[] {
  return entries.filter((e) => e.triesLeft === 0 && e.slot !== running);
}

/**
 * Why the trial of `entry` failed: the trial's own record first, then the crash journal,
 * then what its initramfs left before it reset the machine (it never reached the root).
 */
export function rejectionFor(
  entry: Entry,
  record: BootRecord,
  crashes: readonly CrashRecord[],
  now: string,
  initramfsFailure: InitramfsFailure | null = null,
  loaderBootCountPath: string | null = null,
): Rejection {
  const trial =
    record.trial && record.trial.version === entry.version && record.trial.slot === entry.slot
      ? record.trial
      : null;
  const base = {
    version: entry.version,
    slot: entry.slot,
    attempts: entry.triesDone ?? 1,
    time: now,
  };
  // systemd-boot counted the trial down in this very power-on (the variable does not survive
  // a reset), so its image never ran: the firmware or systemd-boot refused to start it, and
  // the firmware then started systemd-boot again, which took the proven entry.
  const counted = countedEntry(loaderBootCountPath);
  if (counted?.slot === entry.slot && counted.version === entry.version)
    return {
      ...base,
      reason: "BootImageRefused",
      message:
        "the trial's image never started: the firmware or systemd-boot refused it (with Secure Boot on: a release not signed with a key in the machine's db, or changed after signing)",
    };
  if (trial?.outcome === "HealthCheckFailed")
    return { ...base, reason: "HealthCheckFailed", message: trial.message };
  const crash = crashes.find(
    (c) =>
      (trial !== null && c.bootId !== "" && c.bootId === trial.bootId) ||
      (c.release === entry.version &&
        c.slot === entry.slot &&
        (!trial || c.time >= trial.startedAt.slice(0, 19))),
  );
  if (crash) {
    const panic =
      crash.lines.findLast((l) => l.includes("Kernel panic - not syncing")) ?? crash.kind;
    return {
      ...base,
      reason: "Crashed",
      message: `the kernel crashed: ${panic.replace(/^\[[\s\d.]+\]\s*/, "")}`,
    };
  }
  if (initramfsFailure?.version === entry.version && initramfsFailure.slot === entry.slot)
    return {
      ...base,
      reason: "NoBootComplete",
      message: `the trial's initramfs did not reach the root: ${initramfsFailure.message}`,
    };
  return {
    ...base,
    reason: "NoBootComplete",
    message:
      "the trial boot did not finish its health checks and left no crash record: a hang the watchdog reset, or a power loss",
  };
}

export type StagingDecision =
  | { readonly kind: "none" }
  | { readonly kind: "refused"; readonly reason: StagingRejectedReason; readonly message: string }
  /** The spec's release already waits in the other slot with a counter: reboot into it, or wait. */
  | { readonly kind: "pending"; readonly slot: Slot; readonly version: string }
  | {
      readonly kind: "stage";
      readonly slot: Slot;
      readonly version: string;
      readonly source: string | null;
      /** The other slot's entries, removed before a byte of the slot is written. */
      readonly remove: readonly string[];
    };

export type SpecReading =
  | { readonly kind: "none" }
  | { readonly kind: "invalid"; readonly message: string }
  | { readonly kind: "spec"; readonly spec: Spec };

/** A storage role's partition on this machine's disks: `liken-<role>`. */
export interface StoragePartition {
  readonly role: string;
  readonly disk: string;
  readonly size: number;
}

/** Step 4: whether the spec's release goes into the other slot (the running one is never written). */
export function decideStaging(input: {
  readonly spec: SpecReading;
  readonly running: { readonly slot: Slot; readonly version: string };
  readonly entries: readonly Entry[];
  readonly rejection: Rejection | null;
  readonly storage?: readonly StoragePartition[];
}): { staging: StagingDecision; actions: EntryAction[] } {
  const { spec, running, entries, rejection } = input;
  const other = otherSlot(running.slot);
  const pending = entries.filter(
    (e) => e.slot === other && e.triesLeft !== null && e.triesLeft > 0,
  );
  const unstage = (keep?: string) =>
    pending
      .filter((e) => e.version !== keep)
      .map((e): EntryAction => ({ op: "remove", fileName: e.fileName }));
  if (spec.kind === "none") return { staging: { kind: "none" }, actions: [] };
  if (spec.kind === "invalid")
    return {
      staging: { kind: "refused", reason: "SpecInvalid", message: spec.message },
      actions: [],
    };
  const target = spec.spec.version;
  if (target === running.version) return { staging: { kind: "none" }, actions: unstage() };
  if (rejection && rejection.version === target)
    return {
      staging: {
        kind: "refused",
        reason: "VersionRejected",
        message: `release ${target} failed its trial boot (${rejection.reason}); set spec.version to a different release`,
      },
      actions: unstage(),
    };
  const shrink = storageShrink(spec.spec, input.storage ?? []);
  if (shrink)
    return {
      staging: { kind: "refused", reason: "StorageShrink", message: shrink },
      actions: unstage(),
    };
  if (pending.some((e) => e.version === target))
    return { staging: { kind: "pending", slot: other, version: target }, actions: unstage(target) };
  // The release is already on the machine: the other slot still holds it, proven before
  // (its entry has no counter, and staging removes a slot's entries before it writes a
  // byte). A spec without a source names it (docs/rollback.md): its entry gets one try
  // again, and nothing is written to the slot.
  const kept = entries.find(
    (e) => e.slot === other && e.version === target && e.triesLeft === null,
  );
  if (kept && spec.spec.source === null)
    return {
      staging: { kind: "pending", slot: other, version: target },
      actions: [
        ...unstage(),
        stagedEntry(other, target),
        { op: "remove", fileName: kept.fileName },
      ],
    };
  return {
    staging: {
      kind: "stage",
      slot: other,
      version: target,
      source: spec.spec.source,
      remove: entries.filter((e) => e.slot === other).map((e) => e.fileName),
    },
    actions: [],
  };
}

// A role the spec makes smaller than its partition: the release would expect less than the
// disk holds (a reinstallation with another layout), and a partition never shrinks in place.
function storageShrink(spec: Spec, partitions: readonly StoragePartition[]): string | null {
  for (const role of spec.storage) {
    if (role.size === "rest") continue;
    const on = partitions.find((p) => p.role === role.role);
    if (on && role.size < on.size)
      return `storage role ${role.role} is ${formatSize(role.size)} in the spec and ${formatSize(on.size)} on disk ${on.disk} (partition ${partitionLabel(role.role)}): set the role's size in the spec to ${formatSize(on.size)} or more, or reinstall the machine with the new layout`;
  }
  return null;
}

/** The entry a staged release gets: one try, fixed-width counter (the FAT name keeps its length). */
export function stagedEntry(slot: Slot, version: string): EntryAction {
  return {
    op: "write",
    fileName: entryFileName(slot, version, { left: 1, done: 0 }),
    slot,
    version,
    rank: "trial",
  };
}

export type { RejectionReason };
