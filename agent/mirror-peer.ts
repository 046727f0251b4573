// The other disk of a mirrored system disk, as the boot agent finds it: its partitions
// among the disks' GPTs by the PARTUUIDs identity.json names, its ESP and state partition
// mounted beside the booted disk's, and what became of the agent's reads and writes of it.
// A peer that is missing or fails never stops the boot: SystemDiskMirrored says so
// (agent/mirror-condition.ts), and the agent goes on with the booted disk alone.
import { mkdir } from "node:fs/promises";
import { firstLine } from "../common/errors.ts";
import { partitionLabel, SYSTEM_LABELS } from "../common/partition-labels.ts";
import type { BootIdentity } from "../formats/identity.ts";
import { mount, umount } from "../tools/mount.ts";
import type { ConditionPart } from "./declared-modules.ts";
import { type Partition, step } from "./machine.ts";
import {
  type MirrorMembers,
  memberName,
  mirrorCondition,
  mirrorMembers,
} from "./mirror-condition.ts";
import { PEER_ESP, PEER_STATE } from "./state-files.ts";
import type { Slot } from "./types.ts";

/** One disk of the mirror as the agent writes it: its ESP and state partition mounted, its slots. */
export interface MirrorDisk {
  readonly esp: string;
  readonly state: string;
  readonly slots: Readonly<Record<Slot, Partition>>;
}

export class MirrorPeer {
  /** The peer's failure, once one read or write of it failed; it is not written again at this boot. */
  #failure: string | null = null;
  #mounted = false;

  private constructor(
    readonly machine: string | null,
    readonly members: MirrorMembers | string,
    /** The peer's system partitions by GPT name, those found. */
    readonly partitions: ReadonlyMap<string, Partition>,
  ) {}

  /**
   * The peer of the booted disk, its ESP and state partition mounted when it is whole;
   * null on a machine whose identity.json names no mirror.
   */
  static async open(
    identity: Pick<BootIdentity, "machine" | "mirror" | "mirrorError">,
    bootedEsp: Partition,
    all: readonly Partition[],
  ): Promise<MirrorPeer | null> {
    if (identity.mirror === null) return null;
    const members = mirrorMembers(identity.mirror, identity.mirrorError, bootedEsp.partUuid);
    const found = new Map<string, Partition>();
    if (typeof members !== "string")
      for (const label of SYSTEM_LABELS) {
        const p = all.find((q) => q.partUuid === members.peer.partUuids[label]);
        if (p && p.disk !== bootedEsp.disk) found.set(label, p);
      }
    const peer = new MirrorPeer(identity.machine, members, found);
    await peer.#mount();
    return peer;
  }

  async #mount(): Promise<void> {
    if (typeof this.members === "string") {
      step(`mirror: ${this.members}; this disk is written alone`);
      return;
    }
    const name = memberName(this.members.peer);
    const alone = `member ${this.members.booted.member} runs alone`;
    const absent = SYSTEM_LABELS.filter((l) => !this.partitions.has(l));
    const esp = this.partitions.get(partitionLabel("esp"));
    const state = this.partitions.get(partitionLabel("state"));
    if (absent.length === SYSTEM_LABELS.length) return step(`${name} is missing: ${alone}`);
    if (absent.length > 0 || !esp || !state)
      return step(`${name} lacks its partition ${absent.join(", ")}: ${alone}`);
    try {
      await mkdir(PEER_ESP, { recursive: true });
      await mkdir(PEER_STATE, { recursive: true });
      await mount(esp.device, PEER_ESP, "vfat");
      await mount(state.device, PEER_STATE, "ext4");
      this.#mounted = true;
      step(`this boot is mirror member ${this.members.booted.member}; ${name} is on ${esp.disk}`);
    } catch (error) {
      // The ESP may have mounted before the state did not: the peer is not written either way.
      await umount(PEER_ESP).catch(() => undefined);
      this.fail("mount", error);
    }
  }

  /** Whether the agent reads and writes the peer: it is whole, mounted, and nothing of it failed. */
  get usable(): boolean {
    return this.#mounted && this.#failure === null;
  }

  /** The peer as the agent writes it (only when usable: its partitions are all found). */
  disk(): MirrorDisk {
    const slot = (s: Slot) => {
      const p = this.partitions.get(partitionLabel(s));
      if (!p) throw new Error(`the mirror's other disk has no slot ${s}`);
      return p;
    };
    return { esp: PEER_ESP, state: PEER_STATE, slots: { a: slot("a"), b: slot("b") } };
  }

  /** The two members' places: which this boot came from, which is the peer; null when unknown. */
  get places(): { readonly booted: 1 | 2; readonly peer: 1 | 2 } | null {
    if (typeof this.members === "string") return null;
    return { booted: this.members.booted.member, peer: this.members.peer.member };
  }

  /** A read or write of the peer failed: said once, and the peer is left alone for this boot. */
  fail(what: string, error: unknown): void {
    if (this.#failure !== null || typeof this.members === "string") return;
    this.#failure = `${what}: ${firstLine(error)}`;
    step(
      `${memberName(this.members.peer)} failed (${this.#failure}): member ${this.members.booted.member} runs alone`,
    );
  }

  /** SystemDiskMirrored as it stands now. */
  condition(): ConditionPart {
    if (typeof this.members === "string") return mirrorCondition({ unreadable: this.members });
    return mirrorCondition({
      ...this.members,
      machine: this.machine,
      absent: SYSTEM_LABELS.filter((l) => !this.partitions.has(l)),
      failure: this.#failure,
    });
  }

  /** Unmounts the peer's partitions (an unmount writes them out). */
  async close(): Promise<void> {
    if (!this.#mounted) return;
    this.#mounted = false;
    await umount(PEER_STATE, PEER_ESP);
  }
}
