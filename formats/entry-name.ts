// Boot Loader Specification entry names as liken writes them and systemd-boot renames them
// (uapi-group.org/specifications/specs/boot_loader_specification, "Boot counting"):
// `liken-<slot>-<version>.conf`, with `+LEFT` or `+LEFT-DONE` before `.conf` while the
// entry is on trial. Pure, so `inspect` and the boot path read names the same way.
import { isVersion } from "../common/names.ts";
import type { Slot } from "./boot-entries.ts";

export interface EntryName {
  readonly slot: Slot;
  readonly version: string;
  /** null: no counter, the entry is proven (blessed). */
  readonly triesLeft: number | null;
  readonly triesDone: number | null;
}

// systemd-boot reads the counter after the last "+" of the name; versions never hold a "+".
const COUNTER = /\+(\d+)(?:-(\d+))?$/;
const LIKEN_ENTRY = /^liken-([ab])-(.+)$/;

/** What a liken entry's file name says, or undefined for any other file name. */
export function parseEntryName(fileName: string): EntryName | undefined {
  if (!fileName.endsWith(".conf")) return undefined;
  let stem = fileName.slice(0, -".conf".length);
  const counter = COUNTER.exec(stem);
  if (counter) stem = stem.slice(0, counter.index);
  const match = LIKEN_ENTRY.exec(stem);
  const version = match?.[2];
  if (!match || version === undefined || !isVersion(version)) return undefined;
  return {
    slot: match[1] as Slot,
    version,
    triesLeft: counter ? Number(counter[1]) : null,
    // "+3" is "+3-0": systemd-boot leaves DONE out until the first try.
    triesDone: counter ? Number(counter[2] ?? 0) : null,
  };
}

/** blessed: proven, no counter; trial: tries left; exhausted: every try failed, sorted last. */
export function entryState(entry: Pick<EntryName, "triesLeft">): "blessed" | "trial" | "exhausted" {
  if (entry.triesLeft === null) return "blessed";
  return entry.triesLeft > 0 ? "trial" : "exhausted";
}
