// SystemDiskMirrored (docs/rollback.md): on a machine whose identity.json names a mirror,
// whether the other disk of the mirror is there and takes the agent's writes. Pure: the
// agent observes the peer (agent/mirror-peer.ts), this decides what the status says.
import { partitionLabel } from "../common/partition-labels.ts";
import type { IdentityMirrorMember } from "../formats/identity.ts";
import type { ConditionPart } from "./declared-modules.ts";

/** The two members as identity.json names them, the booted one found by its PARTUUIDs. */
export interface MirrorMembers {
  readonly booted: IdentityMirrorMember;
  readonly peer: IdentityMirrorMember;
}

/**
 * Which member this boot came from (the one whose PARTUUIDs hold the booted disk's ESP) and
 * which is its peer; a string says why identity.json's mirror does not tell.
 */
export function mirrorMembers(
  members: readonly IdentityMirrorMember[],
  mirrorError: string | null,
  bootedEspPartUuid: string,
): MirrorMembers | string {
  const booted = members.find((m) => m.partUuids[partitionLabel("esp")] === bootedEspPartUuid);
  const peer = members.find((m) => m !== booted);
  if (booted && peer) return { booted, peer };
  return (
    mirrorError ??
    `the install's identity names no mirror member with this disk's ESP (PARTUUID ${bootedEspPartUuid})`
  );
}

/** What the agent found of the peer at this boot, and what became of its writes since. */
export interface PeerObservation extends MirrorMembers {
  /** The manifest's name of the machine, for the menu entry that repairs it; null when unknown. */
  readonly machine: string | null;
  /** The peer's system partitions (GPT names) that no disk holds. */
  readonly absent: readonly string[];
  /** The first read, mount or write of the peer that failed, in one line; null when none did. */
  readonly failure: string | null;
}

/** How a person finds the disk: its serial, else its WWN, else where it was at the install. */
export function memberName(member: IdentityMirrorMember): string {
  const which = member.serial
    ? `serial ${member.serial}`
    : member.wwn
      ? `WWN ${member.wwn}`
      : `${member.path} at the install`;
  return `mirror member ${member.member} (${which})`;
}

export function mirrorCondition(
  view: PeerObservation | { readonly unreadable: string },
): ConditionPart {
  if ("unreadable" in view)
    return {
      status: "False",
      reason: "MirrorUnknown",
      message: `the mirror is not known: ${view.unreadable}; the agent writes this disk alone; read both disks with liken-stick inspect`,
    };
  const { booted, peer, machine, absent, failure } = view;
  const repair = `replace it with a blank disk and choose Repair the mirror of ${machine ?? "this machine"} on the stick's menu (or boot the stick with liken.repair=1)`;
  const alone = `the machine runs from member ${booted.member} alone`;
  if (absent.length === 5)
    return {
      status: "False",
      reason: "MemberMissing",
      message: `${memberName(peer)} is missing: ${alone}; put the disk back, or ${repair}`,
    };
  const why = absent.length > 0 ? `its partition ${absent.join(", ")} is not found` : failure;
  if (why !== null)
    return {
      status: "False",
      reason: "MemberFailed",
      message: `${memberName(peer)} failed: ${why}; ${alone}; ${repair}`,
    };
  return {
    status: "True",
    reason: "BothMembers",
    message: `the system is on mirror members 1 and 2; this boot came from member ${booted.member}`,
  };
}
