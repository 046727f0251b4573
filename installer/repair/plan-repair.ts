// Repair the mirror of a machine: a pure decision from the disks as classified. One member
// of this machine's complete mirrored install is here and the other is not; a blank disk
// takes the missing member's place. Never a disk that holds anything: only `blank` disks
// are candidates, so data liken did not write is never touched.
import { formatSizeShort, MIB } from "../../common/size.ts";
import type { Disk } from "../../hardware/disks/types.ts";
import type { Manifest } from "../../manifest/types.ts";
import { compareDisks, matchesSelector } from "../plan/order.ts";

export interface RepairInput {
  readonly disks: readonly Disk[];
  readonly manifest: Manifest;
  readonly machine: string;
  /** The end of the survivor's last system partition, in bytes: a replacement holds at least that and the last MiB. */
  readonly survivorSystemEnd?: number;
}

export type RepairDecision =
  | {
      readonly ok: true;
      readonly survivor: Disk;
      readonly target: Disk;
      /** The place the target takes in the mirror: the missing member's. */
      readonly member: 1 | 2;
      readonly installId: string;
    }
  | {
      readonly ok: false;
      readonly reason: RepairRefusal;
      readonly what: string;
      readonly hint: string;
    };

export type RepairRefusal = "NothingToRepair" | "NoEligibleDisk";

/** The mirror's member that is here, when exactly one is; else why there is nothing to repair. */
export function survivingMember(
  input: Pick<RepairInput, "disks" | "manifest" | "machine">,
): { readonly survivor: Disk } | Extract<RepairDecision, { ok: false }> {
  const { cluster } = input.manifest;
  const members = input.disks.filter(
    (d) =>
      d.verdict === "liken" &&
      d.claim?.complete &&
      d.claim.mirror &&
      d.claim.cluster === cluster &&
      d.claim.machine === input.machine,
  );
  const [survivor, other] = members;
  if (!survivor)
    return refusal(
      "NothingToRepair",
      `no disk holds a mirrored install of ${cluster}/${input.machine}`,
      "check the machine's disks with liken-stick disks; a machine installed on one disk has no mirror to repair",
    );
  if (other)
    return refusal(
      "NothingToRepair",
      `the mirror of ${cluster}/${input.machine} is whole: ${survivor.path} and ${other.path} are both here`,
      "nothing to do; liken-stick inspect reads each member",
    );
  return { survivor };
}

export function planRepair(input: RepairInput): RepairDecision {
  const found = survivingMember(input);
  if (!("survivor" in found)) return found;
  const { survivor } = found;
  const claim = survivor.claim!;
  const mirror = claim.mirror!;
  const machine = input.manifest.machines.find((m) => m.name === input.machine);
  const selector = machine?.system_disk;
  const need = (input.survivorSystemEnd ?? 0) + MIB;
  const member = (3 - mirror.member) as 1 | 2;
  // A repair that was stopped left its new member partial: the same repair finishes it.
  const ours = (d: Disk) =>
    d.verdict === "liken" &&
    d.claim?.installId === claim.installId &&
    !d.claim.complete &&
    d.claim.mirror?.member === member;
  const why = (d: Disk): string | undefined => {
    if (d.verdict !== "blank" && !ours(d))
      return `${d.verdict} (${d.reasons.join(", ") || "holds an install"})`;
    if (selector && !matchesSelector(d, selector)) return "does not match system_disk";
    if (d.logicalSectorSize !== survivor.logicalSectorSize)
      return `has ${d.logicalSectorSize}-byte sectors, and ${survivor.path} ${survivor.logicalSectorSize}-byte ones`;
    if (d.size < need)
      return `is smaller than the mirror's system partitions (${formatSizeShort(need)})`;
    return undefined;
  };
  const others = input.disks.filter((d) => d !== survivor).sort(compareDisks);
  const target =
    others.find((d) => ours(d) && why(d) === undefined) ?? others.find((d) => why(d) === undefined);
  if (!target) {
    const list = others.map((d) => `${d.path} ${why(d)}`).join("; ");
    return refusal(
      "NoEligibleDisk",
      `no blank disk can take member ${member} of the mirror of ${claim.cluster}/${input.machine}${list ? `: ${list}` : ""}`,
      "attach a blank disk at least as large as the surviving member; liken never writes a disk that holds data",
    );
  }
  return {
    ok: true,
    survivor,
    target,
    member,
    installId: claim.installId,
  };
}

function refusal(
  reason: RepairRefusal,
  what: string,
  hint: string,
): Extract<RepairDecision, { ok: false }> {
  return { ok: false, reason, what, hint };
}
