// The boot agent's view of the mounted ESP: the entries in loader/entries and each slot's
// kernel, initrd and release.toml. Files are written under a temporary name and renamed,
// and the directory is synced, so an entry is either there whole or not there.

import {
  copyFile,
  mkdir,
  open,
  readdir,
  readFile,
  rename,
  unlink,
  writeFile,
} from "node:fs/promises";
import { dirname, join } from "node:path";
import type { Arch } from "../common/arch.ts";
import { entryText, SLOT_UKI, type SlotRoot, slotDir } from "../formats/boot-entries.ts";
import { parseEntryName } from "../formats/entry-name.ts";
import { RELEASE_UKI, type ReleaseInfo, requireRelease } from "../formats/release.ts";
import type { EntryAction } from "./boot-plan.ts";
import type { Entry, Slot } from "./types.ts";

const ENTRIES = "loader/entries";
/**
 * A mirrored machine's generation on each ESP (docs/design.md section 5): a decimal number,
 * bumped on both by every set of the agent's writes; absent on one disk, and until the
 * agent's first write on a mirror.
 */
const MIRROR_GENERATION = "liken/mirror-generation";

export async function listEntries(esp: string): Promise<Entry[]> {
  // No entries folder is an ESP without entries: identifyBoot says what that means.
  const names = await readdir(join(esp, ENTRIES)).catch(() => [] as string[]);
  const entries: Entry[] = [];
  for (const fileName of names.sort()) {
    const name = parseEntryName(fileName);
    if (name) entries.push({ ...name, fileName });
  }
  return entries;
}

/**
 * Applies entry changes in order; `partUuids` gives each slot's root=PARTUUID=, and the
 * slot's release.toml on the ESP its verity root hash (so an entry always names the hash
 * tree of the release its slot holds).
 */
export async function applyEntryActions(
  esp: string,
  actions: readonly EntryAction[],
  partUuids: Readonly<Record<Slot, string>>,
): Promise<void> {
  const roots = new Map<Slot, ReturnType<typeof slotRoot>>();
  const rootOf = (slot: Slot) => {
    const known = roots.get(slot) ?? slotRoot(esp, slot, partUuids[slot]);
    roots.set(slot, known);
    return known;
  };
  for (const action of actions) {
    const path = join(esp, ENTRIES, action.fileName);
    // An entry already gone is removed.
    if (action.op === "remove") await unlink(path).catch(() => undefined);
    else {
      const { root, signed, arch } = await rootOf(action.slot);
      await replaceFile(
        path,
        entryText(action.slot, action.version, root, action.rank, signed, arch),
      );
    }
    await syncDir(join(esp, ENTRIES));
  }
}

/** Each entry's text by file name: what the mirror copies to the other disk. */
export async function entryTexts(esp: string): Promise<Record<string, string>> {
  const texts: Record<string, string> = {};
  for (const e of await listEntries(esp))
    texts[e.fileName] = await readFile(join(esp, ENTRIES, e.fileName), "utf8");
  return texts;
}

/** An entry written whole from its text (the other disk's, with this disk's PARTUUIDs). */
export async function writeEntryFile(esp: string, fileName: string, text: string): Promise<void> {
  await writeEspFile(join(ENTRIES, fileName), esp, text);
}

/** A slot's release.toml on the ESP; null when the slot holds no release. */
export async function slotReleaseText(esp: string, slot: Slot): Promise<string | null> {
  // No release.toml is a slot that holds no release (never written, or forgotten).
  return readFile(join(esp, slotDir(slot), "release.toml"), "utf8").catch(() => null);
}

/** The mirror's generation on this ESP; 0 when there is none or it is not a number. */
export async function readMirrorGeneration(esp: string): Promise<number> {
  // No file is generation 0: as the installer leaves a mirror's two ESPs.
  const text = await readFile(join(esp, MIRROR_GENERATION), "utf8").catch(() => "");
  return /^\d{1,15}\n?$/.test(text) ? Number(text.trim()) : 0;
}

export async function writeMirrorGeneration(esp: string, generation: number): Promise<void> {
  await writeEspFile(MIRROR_GENERATION, esp, `${generation}\n`);
}

async function writeEspFile(path: string, esp: string, text: string): Promise<void> {
  const full = join(esp, path);
  await mkdir(dirname(full), { recursive: true });
  await replaceFile(full, text);
  await syncDir(dirname(full));
}

async function slotRoot(
  esp: string,
  slot: Slot,
  partUuid: string,
): Promise<{ root: SlotRoot; signed: boolean; arch: Arch }> {
  const release = await requireRelease(join(esp, slotDir(slot)));
  return {
    root: { partUuid, verity: release.verity },
    signed: release.signed,
    arch: release.arch,
  };
}

/** Forgets what a slot holds (before its partition is written): inspect then reads it empty. */
export async function forgetSlot(esp: string, slot: Slot): Promise<void> {
  // No release.toml is a slot already forgotten.
  await unlink(join(esp, slotDir(slot), "release.toml")).catch(() => undefined);
  // The unlink above is what counts; a sync that fails leaves it to the umount's write-out.
  await syncDir(join(esp, slotDir(slot))).catch(() => undefined);
}

/**
 * A release's boot files into its slot's folder: the kernel and initrd, or a signed
 * release's unified kernel image (the other kind's files, left from the slot's last release,
 * go); release.toml last.
 */
export async function installSlotFiles(
  esp: string,
  slot: Slot,
  release: ReleaseInfo,
): Promise<void> {
  const dir = join(esp, slotDir(slot));
  await mkdir(dir, { recursive: true });
  const boot: [string, string][] = release.signed
    ? [[RELEASE_UKI, SLOT_UKI]]
    : [
        ["vmlinuz", "vmlinuz"],
        ["initrd.img", "initrd.img"],
      ];
  const files: [string, string][] = [...boot, ["release.toml", "release.toml"]];
  for (const [from, to] of files) {
    const temporary = join(dir, `${to}.new`);
    await copyFile(join(release.dir, from), temporary);
    await fsyncFile(temporary);
    await rename(temporary, join(dir, to));
    await syncDir(dir);
  }
  const stale = release.signed ? ["vmlinuz", "initrd.img"] : [SLOT_UKI];
  // A stale file that is not there is what this wants.
  for (const name of stale) await unlink(join(dir, name)).catch(() => undefined);
}

async function replaceFile(path: string, text: string): Promise<void> {
  const temporary = `${path}.new`;
  await writeFile(temporary, text);
  await fsyncFile(temporary);
  await rename(temporary, path);
}

// fsync of a file (opened for writing, as FAT wants) or of a directory (its entries).
async function syncPath(path: string, flags: "r+" | "r"): Promise<void> {
  const handle = await open(path, flags);
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}

function fsyncFile(path: string): Promise<void> {
  return syncPath(path, "r+");
}

function syncDir(dir: string): Promise<void> {
  return syncPath(dir, "r");
}
