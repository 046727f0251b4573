// Makes an installed system disk the firmware's next boot, once: a Boot#### entry for the
// loader on the disk's ESP, found by the partition's place and GUID in the disk's GPT, and
// BootNext naming it. The stick stays first in the boot order, so a later power-on with it
// still in boots the stick again, which then decides (installer/unattended/install-once.ts).
// A mirror's two members each get an entry, and both go into the boot order right after the
// stick, so the firmware boots the second when the first is gone.

import { ARCHES, archFacts } from "../common/arch.ts";
import { LikenError } from "../common/errors.ts";
import { partitionLabel } from "../common/partition-labels.ts";
import { encodeLoadOption } from "../formats/efi-load-option.ts";
import { readGpt } from "../formats/gpt-read.ts";
import { PARTITION_TYPES } from "../formats/gpt-types.ts";
import { bootEntryInto, bootNextInto, bootOrderWith, setBootNext } from "../hardware/efi-vars.ts";
import { listFatDir } from "../tools/mtools.ts";

export interface BootNextTarget {
  /** The system disk (a block device; an image file in tests). */
  readonly path: string;
  /** The second member of a mirrored system disk. */
  readonly mirrorPeer?: string;
  readonly cluster: string;
  readonly machine: string;
  /** The efivarfs mount; tests give a folder. */
  readonly efivars?: string;
}

/** The boot entries' numbers (Boot####): BootNext names the first. */
export async function bootDiskNext(target: BootNextTarget): Promise<number[]> {
  const efivars = target.efivars ? { efivars: target.efivars } : {};
  const name = `liken ${target.cluster}/${target.machine}`;
  if (!target.mirrorPeer)
    return [await bootNextInto({ ...(await entryFor(target.path, name)), ...efivars })];
  const numbers = await bootMirror({ ...target, members: [target.path, target.mirrorPeer] });
  await setBootNext(numbers[0] as number, target.efivars);
  return numbers;
}

/**
 * An entry for each member of a mirror, both in the boot order (right after the stick) in
 * member order; BootNext is left alone. Returns the entries' numbers.
 */
export async function bootMirror(target: {
  readonly members: readonly [string, string];
  readonly cluster: string;
  readonly machine: string;
  readonly efivars?: string;
}): Promise<number[]> {
  const efivars = target.efivars ? { efivars: target.efivars } : {};
  const numbers: number[] = [];
  for (const [i, path] of target.members.entries()) {
    const description = `liken ${target.cluster}/${target.machine} (mirror ${i + 1} of 2)`;
    numbers.push(await bootEntryInto({ ...(await entryFor(path, description)), ...efivars }));
  }
  await bootOrderWith(numbers, target.efivars);
  return numbers;
}

async function entryFor(path: string, description: string) {
  const esp = await readEsp(path);
  const loader = await removableLoaderOn(path, esp.startLba * esp.sectorSize);
  const option = encodeLoadOption({
    description,
    partition: esp,
    path: `\\${loader.replaceAll("/", "\\")}`,
  });
  return { option, description, partitionUuid: esp.uuid };
}

// The entry names the loader the ESP holds, BOOTX64.EFI or BOOTAA64.EFI: the release on the
// disk decided the arch, and an install, a repair and a disk found installed all read it here.
async function removableLoaderOn(path: string, espOffset: number): Promise<string> {
  const names = (await listFatDir(path, espOffset, "EFI/BOOT")) ?? [];
  const held = new Set(names.map((n) => n.toUpperCase()));
  const loader = ARCHES.map((a) => archFacts(a).removableLoader).find((l) =>
    held.has(l.slice(l.lastIndexOf("/") + 1)),
  );
  if (loader) return loader;
  throw new LikenError({
    kind: "failed",
    what: `the ESP of ${path} holds no EFI/BOOT/BOOTX64.EFI or BOOTAA64.EFI, so the firmware cannot be told to boot it`,
    hint: "run liken-stick inspect on the disk; install again if it is damaged",
  });
}

async function readEsp(path: string) {
  const gpt = await readGpt(path);
  const esp = gpt?.entries.find(
    (e) => e.typeGuid === PARTITION_TYPES.esp && e.name === partitionLabel("esp"),
  );
  if (!gpt || !esp) {
    throw new LikenError({
      kind: "failed",
      what: `${path} has no liken ESP in its GPT, so the firmware cannot be told to boot it`,
      hint: "run liken-stick inspect on the disk; install again if it is damaged",
    });
  }
  return {
    number: esp.number,
    startLba: esp.start / gpt.sectorSize,
    sizeLba: esp.size / gpt.sectorSize,
    uuid: esp.uuid,
    sectorSize: gpt.sectorSize,
  };
}
