// Repair the mirror: a blank disk takes the missing member's place. It gets the survivor's
// system partitions at the same offsets, under the missing member's PARTUUIDs (the ones
// identity.json names, derived from the install id as the install derived them), each
// copied from the survivor and read back; its ESP's entries name its own slots. The claim
// goes first and its complete flag last, as in an install: killed at any point, the new
// disk reads `liken` (partial) and the same repair finishes it.
import { mkdtemp, open, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { LikenError } from "../../common/errors.ts";
import { partitionLabel, SYSTEM_LABELS } from "../../common/partition-labels.ts";
import { MIB } from "../../common/size.ts";
import { slotDir } from "../../formats/boot-entries.ts";
import {
  CLAIM_HEAD_OFFSET,
  CLAIM_SIZE,
  type Claim,
  claimTailOffset,
  judgeClaim,
} from "../../formats/claim.ts";
import type { Gpt, GptEntry } from "../../formats/gpt.ts";
import { readGpt } from "../../formats/gpt-read.ts";
import { partitionUuidFor, tableIdFor } from "../../formats/install-ids.ts";
import { journalHeader } from "../../formats/journal-header.ts";
import { readReleaseToml } from "../../formats/release.ts";
import { copyRegion, hashRegion, writeImage, zeroRegion } from "../../formats/write-image.ts";
import { type Disk, inventoryDisks } from "../../hardware/disks/index.ts";
import type { Manifest } from "../../manifest/types.ts";
import { copyIntoFat, listFatDir, readFatFile } from "../../tools/mtools.ts";
import { bootMirror } from "../boot-next.ts";
import { writeClaimCopies } from "../claim-write.ts";
import { type DiskHandle, lockDisk } from "../lock.ts";
import { writeTable } from "../partition-table.ts";
import { mirrorPeerOf } from "../plan/plan-layout.ts";
import { planRepair, survivingMember } from "./plan-repair.ts";

export interface RepairRequest {
  readonly manifest: Manifest;
  readonly machine: string;
  /** Block devices and image files; empty means every disk of the machine. */
  readonly paths: readonly string[];
  /** The efivarfs mount; without it, boot entries are written only for block devices. */
  readonly efivars?: string;
  readonly say?: (line: string) => void;
}

export interface RepairOutcome {
  readonly survivor: string;
  readonly target: string;
  readonly member: 1 | 2;
}

export async function repairMirror(request: RepairRequest): Promise<RepairOutcome> {
  const say = request.say ?? (() => undefined);
  const disks = await inventoryDisks({ paths: request.paths });
  const found = survivingMember({ ...request, disks });
  if (!("survivor" in found)) throw refused(found);
  const system = await survivorSystem(found.survivor);
  const decision = planRepair({ ...request, disks, survivorSystemEnd: systemEnd(system) });
  if (!decision.ok) throw refused(decision);
  const { survivor, target, member, installId } = decision;
  say(`liken-stick: ${target.path} becomes member ${member} of the mirror beside ${survivor.path}`);

  const handles: DiskHandle[] = [];
  const work = await mkdtemp(join(tmpdir(), "liken-repair-"));
  try {
    const from = await lockDisk(survivor.path, survivor.kind);
    handles.push(from);
    const to = await lockDisk(target.path, target.kind);
    handles.push(to);
    await stillBlank(target, installId, member);
    const survivorClaim = await readClaim(from, survivor.size);
    const targetClaim: Claim = {
      ...survivorClaim,
      complete: false,
      generation: 1,
      mirror: { member, peer: mirrorPeerOf(survivor) },
    };
    await writeClaimCopies(to.file, target.size, targetClaim);
    const entries = system.map((e) => ({
      ...e,
      uuid: partitionUuidFor(installId, member - 1, e.name),
    }));
    await writeTable(
      to.file,
      {
        ...target,
        sectorSize: target.logicalSectorSize,
        tableId: tableIdFor(installId, member - 1),
      },
      entries,
    );
    const source = (label: string) =>
      system.find((e) => e.name === partitionLabel(label)) as GptEntry;
    const copied = (label: string) =>
      entries.find((e) => e.name === partitionLabel(label)) as GptEntry;
    say("liken-stick: copying the ESP");
    await copyEsp(from, to, source("esp"), work, slotUuids(system), slotUuids(entries));
    for (const slot of ["a", "b"] as const) {
      say(`liken-stick: copying slot ${slot.toUpperCase()}`);
      await copySlot(from, to, source(slot), source("esp"), target.path, slot);
    }
    const journal = copied("journal");
    await zeroRegion(to.file, journal.start, Math.min(MIB, journal.size));
    const header = journalHeader(installId, journal.size);
    await to.file.write(header, 0, header.length, journal.start);
    say("liken-stick: copying the state partition");
    await copyRegion(
      from.file,
      source("state").start,
      to.file,
      source("state").start,
      source("state").size,
    );
    await to.file.sync();
    // The survivor names its new peer before the new member is complete.
    await writeClaimCopies(from.file, survivor.size, {
      ...survivorClaim,
      generation: survivorClaim.generation + 1,
      mirror: { member: (3 - member) as 1 | 2, peer: mirrorPeerOf(target) },
    });
    await writeClaimCopies(to.file, target.size, { ...targetClaim, complete: true, generation: 2 });
  } finally {
    // A lock that will not release goes with this process; the repair's own error stays.
    for (const h of handles) await h.release().catch(() => undefined);
    await rm(work, { recursive: true, force: true });
  }
  await bootEntries(request, survivor, target, member, say);
  say(
    `liken-stick: the mirror of ${request.machine} is whole again: ${survivor.path} and ${target.path}`,
  );
  return { survivor: survivor.path, target: target.path, member };
}

/** The surviving member's system partitions, as its GPT lists them. */
export async function survivorSystem(survivor: Disk): Promise<GptEntry[]> {
  const gpt = await readSystemGpt(survivor);
  return gpt.entries.filter((e) => SYSTEM_LABELS.includes(e.name));
}

/** Where the last system partition ends: a replacement holds at least that and the last MiB. */
export function systemEnd(system: readonly GptEntry[]): number {
  return Math.max(0, ...system.map((e) => e.start + e.size));
}

function refused(f: { reason: string; what: string; hint: string }): LikenError {
  return new LikenError({ kind: "refused", what: f.what, hint: f.hint, reason: f.reason });
}

async function readSystemGpt(disk: Disk): Promise<Gpt> {
  const gpt = await readGpt(disk.path, [disk.logicalSectorSize]);
  if (!gpt)
    throw new LikenError({
      kind: "failed",
      what: `${disk.path} has no partition table that reads`,
      hint: "read it with liken-stick inspect; a member whose table is gone cannot be copied",
    });
  return gpt;
}

// The target, classified again under the lock: blank, or this repair's own partial member.
async function stillBlank(target: Disk, installId: string, member: 1 | 2): Promise<void> {
  const [now] = await inventoryDisks({ paths: [target.path], held: new Set([target.path]) });
  const ours =
    now?.verdict === "liken" &&
    now.claim?.installId === installId &&
    now.claim.mirror?.member === member;
  if (now?.verdict === "blank" || ours) return;
  throw new LikenError({
    kind: "refused",
    what: `${target.path} changed while the repair started: it reads ${now?.verdict} (${now?.reasons.join(", ")})`,
    hint: "check what else uses the disk, then run the repair again",
    reason: "DiskChanged",
  });
}

async function readClaim(h: DiskHandle, size: number): Promise<Claim> {
  const head = Buffer.alloc(CLAIM_SIZE);
  const tail = Buffer.alloc(CLAIM_SIZE);
  await h.file.read(head, 0, CLAIM_SIZE, CLAIM_HEAD_OFFSET);
  await h.file.read(tail, 0, CLAIM_SIZE, claimTailOffset(size));
  const verdict = judgeClaim(head, tail);
  if (verdict.state !== "valid") throw new Error(`${h.path} lost its claim`);
  return verdict.claim;
}

function slotUuids(entries: readonly GptEntry[]): Record<"a" | "b", string> {
  const uuid = (slot: string) =>
    (entries.find((e) => e.name === partitionLabel(slot))?.uuid ?? "").toLowerCase();
  return { a: uuid("a"), b: uuid("b") };
}

// The ESP through a file in the work folder: copied, each entry's root=PARTUUID= turned to
// the new member's slot, then written at the same offset of the new disk.
async function copyEsp(
  from: DiskHandle,
  to: DiskHandle,
  esp: GptEntry,
  work: string,
  oldSlots: Record<"a" | "b", string>,
  newSlots: Record<"a" | "b", string>,
): Promise<void> {
  const image = join(work, "esp.img");
  const out = await open(image, "w");
  try {
    await copyRegion(from.file, esp.start, out, 0, esp.size);
  } finally {
    await out.close();
  }
  for (const name of (await listFatDir(image, 0, "loader/entries")) ?? []) {
    if (name.endsWith("/")) continue;
    const text = await readFatFile(image, 0, `loader/entries/${name}`);
    if (text === undefined) continue;
    const turned = text.replaceAll(oldSlots.a, newSlots.a).replaceAll(oldSlots.b, newSlots.b);
    if (turned === text) continue;
    const file = join(work, name);
    await writeFile(file, turned);
    await copyIntoFat(image, file, `loader/entries/${name}`);
  }
  await writeImage(to.file, image, esp.start);
  await rm(image);
}

// A slot is copied as far as its release reaches, and read back against the release.toml
// the ESP holds for it; a slot without a release (B before the first update) stays empty.
async function copySlot(
  from: DiskHandle,
  to: DiskHandle,
  slot: GptEntry,
  esp: GptEntry,
  source: string,
  name: "a" | "b",
): Promise<void> {
  const text = await readFatFile(from.path, esp.start, `${slotDir(name)}/release.toml`);
  const rootfs = text === undefined ? undefined : readReleaseToml(text).files?.["rootfs.img"];
  if (!rootfs) return;
  await copyRegion(from.file, slot.start, to.file, slot.start, rootfs.size);
  await to.file.sync();
  const actual = await hashRegion(to.file, slot.start, rootfs.size);
  if (actual !== rootfs.sha256)
    throw new LikenError({
      kind: "failed",
      what: `slot ${name.toUpperCase()} of ${source} reads back with sha256 ${actual}, not ${rootfs.sha256}`,
      hint: "check both disks' health (dmesg), then run the repair again",
      reason: "VerifyFailed",
    });
}

// Both members in the firmware's boot order, member 1 first: on the machine itself (block
// devices), or in the folder the caller gives for efivarfs.
async function bootEntries(
  request: RepairRequest,
  survivor: Disk,
  target: Disk,
  member: 1 | 2,
  say: (line: string) => void,
): Promise<void> {
  if (!request.efivars && (survivor.kind !== "block" || target.kind !== "block")) return;
  const members: [string, string] =
    member === 1 ? [target.path, survivor.path] : [survivor.path, target.path];
  await bootMirror({
    members,
    cluster: request.manifest.cluster,
    machine: request.machine,
    ...(request.efivars ? { efivars: request.efivars } : {}),
  });
  say(`liken-stick: the firmware boots ${members[0]}, then ${members[1]}`);
}
