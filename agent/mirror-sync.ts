// Carrying out mirror-plan.ts's decision (docs/design.md section 5): reads both disks of a
// mirrored system disk, plans, and writes the disk that is behind. At boot, before the
// trial, and after each set of the agent's writes. A write of the peer that fails never
// fails the boot: the peer is marked failed (SystemDiskMirrored False, MemberFailed) and
// left alone until the next boot, whose reconcile starts over from the generations.
import { readFile, unlink } from "node:fs/promises";
import { join } from "node:path";
import { writeFileAtomic } from "../common/atomic-file.ts";
import { firstLine } from "../common/errors.ts";
import { slotDir } from "../formats/boot-entries.ts";
import { parseRelease } from "../formats/release.ts";
import { STATE_FILES } from "../formats/state-partition.ts";
import {
  applyEntryActions,
  entryTexts,
  forgetSlot,
  installSlotFiles,
  readMirrorGeneration,
  slotReleaseText,
  writeEntryFile,
  writeMirrorGeneration,
} from "./esp.ts";
import { step } from "./machine.ts";
import type { MirrorDisk, MirrorPeer } from "./mirror-peer.ts";
import { type DiskView, type MirrorAction, planMirror } from "./mirror-plan.ts";
import { copySlotPartition } from "./mirror-slot-copy.ts";
import type { Slot } from "./types.ts";

/** The state partition's documents the agent writes: the peer holds them too. */
const DOCUMENTS = [STATE_FILES.machineStatus, STATE_FILES.bootRecord, STATE_FILES.spec];

/** What keepInStep needs of the peer (agent/mirror-peer.ts). */
export type PeerDisk = Pick<MirrorPeer, "places" | "usable" | "disk" | "fail">;

/**
 * Brings the disk that is behind up to date. Returns "reboot" when the booted disk was the
 * one behind (the peer ran while it was gone): the machine must run the newer side.
 */
export async function keepInStep(
  mirror: PeerDisk | null,
  booted: MirrorDisk,
  running: Slot,
  say: (line: string) => void = step,
): Promise<"reboot" | "done"> {
  const places = mirror?.places;
  if (!mirror || !places) return "done";
  let bootedView: DiskView;
  try {
    bootedView = await readView(booted);
  } catch (error) {
    // The booted disk's own ESP or state does not read: what this boot does next says so.
    say(
      `mirror: this disk's ESP or state does not read (${firstLine(error)}): the other disk is not written`,
    );
    return "done";
  }
  const peerView = mirror.usable
    ? await readView(mirror.disk()).catch((error: unknown) => {
        mirror.fail("read", error);
        return null;
      })
    : null;
  const plan = planMirror({
    booted: bootedView,
    peer: peerView,
    running,
    bootedMember: places.booted,
    peerMember: places.peer,
  });
  switch (plan.kind) {
    case "inStep":
      return "done";
    case "alone":
      // A generation not bumped only leaves the peer, when it returns, to be judged equal.
      await writeMirrorGeneration(booted.esp, plan.generation).catch(() => undefined);
      return "done";
    case "toPeer":
      try {
        await writeMirrorGeneration(booted.esp, plan.generation);
      } catch (error) {
        // The peer is left as it is: at the next boot it is behind, or equal, and brought up again.
        say(
          `mirror: this disk's generation was not written (${firstLine(error)}): the other disk is not written`,
        );
        return "done";
      }
      await apply(plan.actions, booted, mirror.disk(), say).then(
        () =>
          say(
            `mirror: member ${places.peer} is in step with member ${places.booted} (generation ${plan.generation})`,
          ),
        (error: unknown) => mirror.fail("write", error),
      );
      return "done";
    case "toBooted":
      say(`mirror: ${plan.line}`);
      try {
        await apply(plan.actions, mirror.disk(), booted, say);
        return "reboot";
      } catch (error) {
        // This disk's generation stays below the peer's: the next boot tries again. This one
        // goes on with what this disk holds, which boots (every step of the plan keeps it so).
        say(
          `mirror: this disk could not be brought up to date (${firstLine(error)}): booting on as it is`,
        );
        return "done";
      }
    default:
      return plan satisfies never;
  }
}

async function readView(disk: MirrorDisk): Promise<DiskView> {
  const documents: Record<string, string | null> = {};
  // A document that is not there (a first boot, no spec yet) is null on both sides alike.
  for (const path of DOCUMENTS) documents[path] = await readTextOrNull(join(disk.state, path));
  return {
    generation: await readMirrorGeneration(disk.esp),
    entries: await entryTexts(disk.esp),
    releases: { a: await slotReleaseText(disk.esp, "a"), b: await slotReleaseText(disk.esp, "b") },
    documents,
    partUuids: { a: disk.slots.a.partUuid, b: disk.slots.b.partUuid },
  };
}

async function readTextOrNull(path: string): Promise<string | null> {
  return readFile(path, "utf8").catch((error: NodeJS.ErrnoException) => {
    if (error.code === "ENOENT") return null;
    throw error;
  });
}

/** The plan's writes on `to`, from `from`, in order; the first that fails ends them. */
async function apply(
  actions: readonly MirrorAction[],
  from: MirrorDisk,
  to: MirrorDisk,
  say: (line: string) => void,
): Promise<void> {
  const partUuids = { a: to.slots.a.partUuid, b: to.slots.b.partUuid };
  for (const action of actions) {
    switch (action.op) {
      case "removeEntry":
        await applyEntryActions(to.esp, [{ op: "remove", fileName: action.fileName }], partUuids);
        break;
      case "forgetSlot":
        await forgetSlot(to.esp, action.slot);
        break;
      case "copySlot":
        await copySlot(action.slot, from, to, say);
        break;
      case "writeEntry":
        await writeEntryFile(to.esp, action.fileName, action.text);
        break;
      case "writeDocument":
        if (action.text === null)
          // A document already gone is what this wants.
          await unlink(join(to.state, action.path)).catch(() => undefined);
        else await writeFileAtomic(join(to.state, action.path), action.text, modeOf(action.path));
        break;
      case "setGeneration":
        await writeMirrorGeneration(to.esp, action.generation);
        break;
      default:
        action satisfies never;
    }
  }
}

// Each document keeps the mode its writer gives it: spec.toml is readable by all.
function modeOf(path: string): number {
  return path === STATE_FILES.spec ? 0o644 : 0o640;
}

// The slot's partition copied and read back against its release.toml, then its kernel,
// initrd (or unified image) and release.toml on the ESP, release.toml last.
async function copySlot(
  slot: Slot,
  from: MirrorDisk,
  to: MirrorDisk,
  say: (line: string) => void,
): Promise<void> {
  const dir = join(from.esp, slotDir(slot));
  const text = await slotReleaseText(from.esp, slot);
  if (text === null) throw new Error(`slot ${slot} of the disk copied from holds no release`);
  const release = parseRelease(dir, text);
  say(`mirror: copying slot ${slot} (release ${release.version}) to ${to.slots[slot].device}`);
  await copySlotPartition(from.slots[slot].device, to.slots[slot].device, release);
  await installSlotFiles(to.esp, slot, release);
}
