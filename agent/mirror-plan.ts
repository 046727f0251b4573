// How the two disks of a mirrored system disk are kept in step (docs/design.md section 5):
// each ESP holds a generation, bumped on both by every set of the agent's writes. The disk
// with the greater generation is the truth; at equal generations the booted disk is (the
// firmware's counter rename reached the ESP it booted from only). Pure: what the agent
// observed of each disk in, the writes that make the other one equal out
// (agent/mirror-sync.ts carries them out).
import type { Slot } from "../formats/boot-entries.ts";
import { parseEntryName } from "../formats/entry-name.ts";

/** What the agent reads of one disk of the mirror. */
export interface DiskView {
  /** liken/mirror-generation on its ESP; 0 when there is none (as the installer leaves it). */
  readonly generation: number;
  /** The ESP's boot entries: file name to text. */
  readonly entries: Readonly<Record<string, string>>;
  /** Each slot's release.toml on the ESP; null when the slot holds no release. */
  readonly releases: Readonly<Record<Slot, string | null>>;
  /** The state partition's documents the agent keeps: path to text, null when absent. */
  readonly documents: Readonly<Record<string, string | null>>;
  /** The PARTUUIDs of its slots, which its entries name (root=PARTUUID=). */
  readonly partUuids: Readonly<Record<Slot, string>>;
}

/** One write on the disk brought up to date, in the order given. */
export type MirrorAction =
  | { readonly op: "removeEntry"; readonly fileName: string }
  /** The slot's release.toml goes first: a slot being written reads empty and is never booted. */
  | { readonly op: "forgetSlot"; readonly slot: Slot }
  /** The slot's partition copied and read back against release.toml, then its files on the ESP, release.toml last. */
  | { readonly op: "copySlot"; readonly slot: Slot }
  | { readonly op: "writeEntry"; readonly fileName: string; readonly text: string }
  | { readonly op: "writeDocument"; readonly path: string; readonly text: string | null }
  | { readonly op: "setGeneration"; readonly generation: number };

export type MirrorPlan =
  /**
   * The peer is missing or failed: the booted disk's generation goes to `generation`, so
   * that when the peer comes back, whichever disk boots knows this one is newer.
   */
  | { readonly kind: "alone"; readonly generation: number }
  /** Both disks hold the same: nothing to write. */
  | { readonly kind: "inStep" }
  /** The peer is behind: the booted disk's generation goes to `generation`, then the actions on the peer. */
  | { readonly kind: "toPeer"; readonly generation: number; readonly actions: MirrorAction[] }
  /**
   * The peer ran while this disk was gone: the actions on the booted disk, then a reboot, so
   * the machine runs the newer side. `complete` is false when the newer side's running slot
   * differs from this boot's: that slot is left for the next boot, which runs the other.
   */
  | {
      readonly kind: "toBooted";
      readonly actions: MirrorAction[];
      readonly complete: boolean;
      readonly line: string;
    };

export interface MirrorObservation {
  readonly booted: DiskView;
  /** null when the peer is missing, or a read or write of it failed at this boot. */
  readonly peer: DiskView | null;
  /** The slot this boot runs from: never written. */
  readonly running: Slot;
  readonly bootedMember: 1 | 2;
  readonly peerMember: 1 | 2;
}

export function planMirror(o: MirrorObservation): MirrorPlan {
  const { booted, peer } = o;
  if (peer === null) return { kind: "alone", generation: booted.generation + 1 };
  if (peer.generation > booted.generation) {
    const plan = bringUp(peer, booted, o.running);
    const behind = `member ${o.bootedMember} was behind member ${o.peerMember} (generation ${booted.generation} < ${peer.generation})`;
    if (plan.progress)
      return {
        kind: "toBooted",
        actions: plan.complete
          ? [...plan.actions, { op: "setGeneration", generation: peer.generation }]
          : plan.actions,
        complete: plan.complete,
        line: plan.complete
          ? `${behind}: brought up to date, rebooting`
          : `${behind}: its slot ${otherSlot(o.running)} brought up to date, rebooting into it to bring up slot ${o.running}`,
      };
    // The newer side lives only in the slot this boot runs from, which is never written: the
    // booted disk stays the truth, so the two disks end equal rather than apart.
  }
  const { actions } = bringUp(booted, peer, null);
  if (actions.length === 0 && peer.generation === booted.generation) return { kind: "inStep" };
  const generation = Math.max(booted.generation, peer.generation) + 1;
  return {
    kind: "toPeer",
    generation,
    actions: [...actions, { op: "setGeneration", generation }],
  };
}

/**
 * The writes that make `target` hold what `source` holds, in an order where every instant
 * boots: the entries of a slot that changes go, then its release.toml; the slot is copied;
 * the entries are written; the stale ones go; the documents last. A `keep` slot (the one
 * running on `target`) is never written, and its entries go last, once the other slot holds
 * the newer release.
 */
function bringUp(
  source: DiskView,
  target: DiskView,
  keep: Slot | null,
): { actions: MirrorAction[]; complete: boolean; progress: boolean } {
  const slotOf = (fileName: string) => parseEntryName(fileName)?.slot;
  const changed = (["a", "b"] as const).filter((s) => source.releases[s] !== target.releases[s]);
  const kept = keep !== null && changed.includes(keep) ? keep : null;
  const copied = changed.filter((s) => s !== kept);
  const actions: MirrorAction[] = [];
  const removed = new Set<string>();
  const remove = (fileName: string) => {
    if (removed.has(fileName)) return;
    removed.add(fileName);
    actions.push({ op: "removeEntry", fileName });
  };
  for (const name of Object.keys(target.entries))
    if (copied.some((s) => s === slotOf(name))) remove(name);
  for (const slot of copied) actions.push({ op: "forgetSlot", slot });
  for (const slot of copied)
    if (source.releases[slot] !== null) actions.push({ op: "copySlot", slot });
  const wanted = Object.entries(source.entries)
    .filter(([name]) => kept === null || slotOf(name) !== kept)
    .map(([name, text]) => [name, withPartUuids(text, source.partUuids, target.partUuids)]);
  for (const [fileName, text] of wanted)
    if (target.entries[fileName as string] !== text || removed.has(fileName as string))
      actions.push({ op: "writeEntry", fileName: fileName as string, text: text as string });
  const written = new Set(wanted.map(([name]) => name));
  for (const name of Object.keys(target.entries))
    if (!written.has(name) && (kept === null || slotOf(name) !== kept)) remove(name);
  // The slot that runs keeps its entries until the other slot boots the newer release.
  const progress = kept === null || wanted.some(([name]) => slotOf(name as string) !== kept);
  if (kept !== null && progress)
    for (const name of Object.keys(target.entries)) if (slotOf(name) === kept) remove(name);
  for (const [path, text] of Object.entries(source.documents))
    if ((target.documents[path] ?? null) !== text)
      actions.push({ op: "writeDocument", path, text });
  return { actions, complete: kept === null, progress };
}

/** An entry's text with each slot's PARTUUID on the source disk replaced by the target's. */
function withPartUuids(
  text: string,
  from: Readonly<Record<Slot, string>>,
  to: Readonly<Record<Slot, string>>,
): string {
  return text.replaceAll(from.a, to.a).replaceAll(from.b, to.b);
}

function otherSlot(slot: Slot): Slot {
  return slot === "a" ? "b" : "a";
}
