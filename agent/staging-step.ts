// Step 4 of the boot (docs/design.md section 5), as main() calls it: reads the spec (an update
// medium's wins and is copied to the state partition), decides (boot-plan.ts's
// decideStaging), and carries the decision out: nothing to do, a refusal, a staged release
// still waiting for its reboot, or writing the release into the other slot
// (stage-release.ts). Returns what the status document and the reboot need.
import { mkdir } from "node:fs/promises";
import { writeFileAtomic } from "../common/atomic-file.ts";
import { mount, umount } from "../tools/mount.ts";
import { decideStaging, type StoragePartition } from "./boot-plan.ts";
import { applyEntryActions, listEntries } from "./esp.ts";
import { type Partition, step } from "./machine.ts";
import { readSpec, sourceDir } from "./spec.ts";
import { StagingRefused, stageRelease } from "./stage-release.ts";
import { STATE_SPEC, UPDATE, UPDATE_SPEC } from "./state-files.ts";
import type { StatusInput } from "./status.ts";
import type { BootRecord, Slot, StagingRejectedReason } from "./types.ts";

export interface Staged {
  readonly status: Pick<StatusInput, "stagingRejected">;
  readonly reboot?: { readonly slot: Slot; readonly version: string };
  /** The spec says `reboot = "now"`: the trial is approved, whatever the reboot policy. */
  readonly rebootNow: boolean;
}

export async function staging(input: {
  slot: Slot;
  version: string;
  record: BootRecord;
  esp: string;
  partUuids: Record<Slot, string>;
  slots: Record<Slot, Partition>;
  /** A partition labelled LIKEN-UPDATE, found with the boot disk's. */
  medium: Partition | undefined;
  /** The storage role partitions of this install (liken-<role>). */
  storage: readonly StoragePartition[];
  /** The disks this install's partitions are on: a staged release must boot from each. */
  disks: readonly string[];
  /** The declared ports: a staged release must drive each one's NIC. */
  ports: readonly string[];
}): Promise<Staged> {
  const medium = input.medium ? await mountUpdateMedium(input.medium) : false;
  let spec = await readSpec(STATE_SPEC);
  if (medium) {
    const fromMedium = await readSpec(UPDATE_SPEC);
    if (fromMedium.reading.kind !== "none") {
      if (fromMedium.text !== null && fromMedium.text !== spec.text)
        await writeFileAtomic(STATE_SPEC, fromMedium.text, 0o644);
      spec = fromMedium;
    }
  }
  try {
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
        return {
          status: {},
          reboot: { slot: decision.slot, version: decision.version },
          rebootNow,
        };
      case "stage":
        step(`staging ${decision.version} into slot ${decision.slot}`);
        try {
          await stageRelease({
            decision,
            releaseDir: sourceDir(spec),
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
        return {
          status: {},
          reboot: { slot: decision.slot, version: decision.version },
          rebootNow,
        };
      default:
        return decision satisfies never;
    }
  } finally {
    // The medium is read-only: an umount that fails loses nothing, and reboot ends it.
    if (medium) await umount(UPDATE).catch(() => undefined);
  }
}

// The update medium, ext4 or vfat, read-only.
async function mountUpdateMedium(medium: Partition): Promise<boolean> {
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
