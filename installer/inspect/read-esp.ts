// The ESP's files that say what the disk boots: loader.conf, the entries in loader/entries
// and each slot's release.toml, read in place with mtools (no mount, no root).

import { type Slot, slotDir } from "../../formats/boot-entries.ts";
import { parseEntryName } from "../../formats/entry-name.ts";
import { listFatDir, readFatFile } from "../../tools/mtools.ts";
import type { InspectedEntry } from "./types.ts";

export interface EspFiles {
  readonly loaderConf: string | null;
  /** null when loader/entries does not exist. */
  readonly entries: readonly InspectedEntry[] | null;
  /** Each slot's release.toml, as text. */
  readonly releases: Readonly<Record<Slot, string | null>>;
}

/** Reads the FAT filesystem at byte `offset` of `disk`; throws when it cannot be read. */
export async function readEsp(disk: string, offset: number): Promise<EspFiles> {
  // mtools locks the image it opens: one call at a time.
  const names = await listFatDir(disk, offset, "loader/entries");
  const loaderConf = await readFatFile(disk, offset, "loader/loader.conf");
  const a = await readFatFile(disk, offset, `${slotDir("a")}/release.toml`);
  const b = await readFatFile(disk, offset, `${slotDir("b")}/release.toml`);
  return {
    loaderConf: loaderConf ?? null,
    entries:
      names === undefined
        ? null
        : names
            .filter((n) => !n.endsWith("/"))
            .sort()
            .map(entry),
    releases: { a: a ?? null, b: b ?? null },
  };
}

function entry(fileName: string): InspectedEntry {
  const name = parseEntryName(fileName);
  return {
    fileName,
    slot: name?.slot ?? null,
    version: name?.version ?? null,
    triesLeft: name?.triesLeft ?? null,
    triesDone: name?.triesDone ?? null,
  };
}
