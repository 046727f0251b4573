// Step 4 of the boot (docs/design.md section 5), as main() calls it: reads the spec (an update
// medium's wins and is copied to the state partition), decides (boot-plan.ts's
// decideStaging), and carries the decision out: nothing to do, a refusal, a staged release
// still waiting for its reboot, or writing the release into the other slot
// (stage-release.ts). Returns what the status document and the reboot need. The watch
// (agent/watch/) stages through stageSpec too, from the folder it downloaded a url into.
import { mkdir } from "node:fs/promises";
import { writeFileAtomic } from "../common/atomic-file.ts";
import { storageRoleOf } from "../common/partition-labels.ts";
import { mount, umount } from "../tools/mount.ts";
import { decideStaging, type StagingDecision, type StoragePartition } from "./boot-plan.ts";
import { applyEntryActions, listEntries } from "./esp.ts";
import { type Partition, step } from "./machine.ts";
import { readSpec, type SpecFile, sourceDir } from "./spec.ts";
import { StagingRefused, stageRelease } from "./stage-release.ts";
import { STATE_SPEC, UPDATE, UPDATE_SPEC } from "./state-files.ts";
import type { StatusInput } from "./status.ts";
import type { BootRecord, Slot, StagingRejectedReason } from "./types.ts";

export interface Staged {
  readonly status: Pick<StatusInput, "stagingRejected">;
  readonly reboot?: { readonly slot: Slot; readonly version: string };
  /** The spec says `reboot = "now"`: the trial is approved, whatever the reboot policy. */
  readonly rebootNow: boolean;
  /** The spec names its release by url, not yet downloaded: the watch fetches it. */
  readonly download?: boolean;
}

/** What staging reads of the machine, at boot and in the watch (agent/watch/). */
export interface StagingMachine {
  readonly slot: Slot;
  readonly version: string;
  readonly record: BootRecord;
  readonly esp: string;
  readonly partUuids: Readonly<Record<Slot, string>>;
  readonly slots: Readonly<Record<Slot, Partition>>;
  /** The storage role partitions of this install (liken-<role>). */
  readonly storage: readonly StoragePartition[];
  /** The disks this install's partitions are on: a staged release must boot from each. */
  readonly disks: readonly string[];
  /** The declared ports: a staged release must drive each one's NIC. */
  readonly ports: readonly string[];
}

export async function staging(
  input: StagingMachine & {
    /** A partition labelled LIKEN-UPDATE, found with the boot disk's. */
    readonly medium: Partition | undefined;
  },
): Promise<Staged> {
  const medium = input.medium ? await mountUpdateMedium(input.medium) : false;
  try {
    const spec = await currentSpec(medium);
    return await stageSpec({ ...input, spec, releaseDir: sourceDir(spec) });
  } finally {
    // The medium is read-only: an umount that fails loses nothing, and reboot ends it.
    if (medium) await umount(UPDATE).catch(() => undefined);
  }
}

/**
 * The spec in force: a mounted update medium's wins and is copied to the state partition
 * (so it holds after the medium is gone), else the state partition's.
 */
export async function currentSpec(
  mediumMounted: boolean,
  writing: (write: () => Promise<void>) => Promise<void> = (write) => write(),
): Promise<SpecFile> {
  const spec = await readSpec(STATE_SPEC);
  if (!mediumMounted) return spec;
  const fromMedium = await readSpec(UPDATE_SPEC);
  if (fromMedium.reading.kind === "none") return spec;
  const text = fromMedium.text;
  if (text !== null && text !== spec.text)
    await writing(() => writeFileAtomic(STATE_SPEC, text, 0o644));
  return fromMedium;
}

/**
 * Decides (boot-plan.ts's decideStaging) and carries the decision out, from the release
 * folder `releaseDir`: the spec's source, or the folder the watch downloaded the spec's
 * url into. A url spec's release not yet downloaded is left to the watch (`download`).
 */
export async function stageSpec(
  input: StagingMachine & { readonly spec: SpecFile; readonly releaseDir: string | null },
): Promise<Staged> {
  const { spec } = input;
  const entries = await listEntries(input.esp);
  const { staging: decision, actions } = decideStaging({
    spec: spec.reading,
    running: { slot: input.slot, version: input.version },
    entries,
    rejection: input.record.rejection,
    storage: input.storage,
  });
  const rebootNow = spec.reading.kind === "spec" && spec.reading.spec.rebootNow;
  await applyEntryActions(input.esp, actions, input.partUuids);
  switch (decision.kind) {
    case "none":
      return { status: {}, rebootNow };
    case "refused":
      step(`staging refused (${decision.reason}): ${decision.message}`);
      return {
        status: { stagingRejected: { reason: decision.reason, message: decision.message } },
        rebootNow,
      };
    case "pending":
      return { status: {}, reboot: { slot: decision.slot, version: decision.version }, rebootNow };
    case "stage":
      if (input.releaseDir === null && spec.reading.kind === "spec" && spec.reading.spec.download) {
        step(
          `release ${decision.version} is not on this machine: the agent downloads it from ${spec.reading.spec.download.url}`,
        );
        return { status: {}, rebootNow, download: true };
      }
      return stageInto(input, decision, rebootNow);
    default:
      return decision satisfies never;
  }
}

async function stageInto(
  input: StagingMachine & { readonly releaseDir: string | null },
  decision: Extract<StagingDecision, { kind: "stage" }>,
  rebootNow: boolean,
): Promise<Staged> {
  step(`staging ${decision.version} into slot ${decision.slot}`);
  try {
    await stageRelease({
      decision,
      releaseDir: input.releaseDir,
      esp: input.esp,
      slot: input.slots[decision.slot],
      partUuids: input.partUuids,
      disks: input.disks,
      ports: input.ports,
      progress: (line) => step(`staging ${decision.version}: ${line}`),
    });
  } catch (error) {
    const reason: StagingRejectedReason =
      error instanceof StagingRefused ? error.reason : "WriteFailed";
    const message = (error as Error).message.split("\n")[0] ?? "";
    step(`staging refused (${reason}): ${message}`);
    return { status: { stagingRejected: { reason, message } }, rebootNow };
  }
  step(`staged ${decision.version} in slot ${decision.slot} with one try`);
  return { status: {}, reboot: { slot: decision.slot, version: decision.version }, rebootNow };
}

// What staging reads of the disks: the update medium (a LIKEN-UPDATE partition on any disk;
// docs/rollback.md, Name the release to run), the storage role partitions, and the disks a
// staged release must boot from: the boot disk, and each disk whose liken-<role>
// partitions the boot disk does not hold (a role placed on another disk).
export function stagingDisks(
  all: readonly Partition[],
  bootDiskName: string,
): { medium: Partition | undefined; storage: StoragePartition[]; disks: string[] } {
  const storage = all.flatMap((p) => {
    const role = storageRoleOf(p.label);
    return role === undefined ? [] : [{ role, disk: p.disk, size: p.size }];
  });
  return {
    medium: all.find((p) => p.label === "LIKEN-UPDATE"),
    storage,
    disks: [...new Set([bootDiskName, ...storage.map((p) => p.disk)])],
  };
}

// The update medium, ext4 or vfat, read-only.
export async function mountUpdateMedium(medium: Partition): Promise<boolean> {
  await mkdir(UPDATE, { recursive: true });
  for (const type of ["ext4", "vfat"]) {
    // Each type is tried in turn; a medium neither mounts is ignored, as the console says.
    const ok = await mount(medium.device, UPDATE, type, ["ro"]).then(
      () => true,
      () => false,
    );
    if (ok) {
      step(`update medium ${medium.device} (LIKEN-UPDATE, ${type})`);
      return true;
    }
  }
  step(`update medium ${medium.device} is neither ext4 nor vfat: ignored`);
  return false;
}
