// What the repair's screens say: the confirmation names the blank disk by what tells it
// from its twins and the member it joins, so the person knows exactly which disk is written.
import { formatSizeShort } from "../common/size.ts";
import { claimOwner } from "../formats/claim-words.ts";
import type { Disk } from "../hardware/disks/index.ts";
import { renderDisks } from "../hardware/disks/render.ts";
import type { RepairDecision } from "../installer/repair/plan-repair.ts";
import { inMenuWords } from "./menu-words.ts";
import { sentence, utcMinute } from "./text.ts";
import type { MenuData, RepairRun } from "./types.ts";

type Planned = Extract<RepairDecision, { ok: true }>;

/** The main menu's entry, and the words the status document's advice names it by. */
export function repairEntryLabel(machine: string): string {
  return `Repair the mirror of ${machine}`;
}

/** The confirmation's text: the disk written, the place it takes, and what else changes. */
export function confirmRepairText(decision: Planned): string[] {
  const { survivor, target, member } = decision;
  const claim = survivor.claim;
  const owner = claim ? claimOwner({ cluster: claim.cluster, machine: claim.machine }) : "";
  return [
    `${target.path} (${diskWords(target)}) becomes member ${member} of the mirror of ${owner} beside ${survivor.path}.`,
    "",
    `${survivor.path} (${diskWords(survivor)}) holds ${claimWords(survivor)}.`,
    `Its system partitions are copied onto ${target.path} and read back. On ${survivor.path} only the claim is written: it then names its new member.`,
    "On a machine's own disks, both members then go into the firmware's boot order. No other disk is written.",
  ];
}

export function repairPrompt(machine: string): string {
  return `Repair the mirror of ${machine}? Nothing is written until you choose Yes.`;
}

export function repairRefusedText(machine: string, what: string, hint: string): string[] {
  return [
    `${repairEntryLabel(machine)} cannot start.`,
    sentence(inMenuWords(what)),
    sentence(inMenuWords(hint)),
    "Nothing was written.",
  ];
}

export function repairingText(run: RepairRun): string[] {
  return [
    `Repairing the mirror of ${run.machine}: ${run.target} becomes member ${run.member}. Leave the machine on.`,
    "",
    ...progressLines(run),
  ];
}

export function repairedText(run: RepairRun): string[] {
  return [
    `The mirror of ${run.machine} is whole again. Remove the stick and power cycle.`,
    "",
    ...progressLines(run),
  ];
}

export function repairFailedText(run: RepairRun, error: string, data: MenuData): string[] {
  return [
    `${repairEntryLabel(run.machine)} failed:`,
    inMenuWords(error),
    `${run.survivor} still boots the machine on its own.`,
    "",
    ...(data.disksProblem
      ? [`The disks cannot be listed: ${data.disksProblem}`]
      : renderDisks(data.disks).trimEnd().split("\n")),
    "",
    ...progressLines(run),
  ];
}

// The repair's lines name the command ("liken-stick: copying slot A"); the menu is the command.
function progressLines(run: RepairRun): string[] {
  return run.lines.map((l) => `  ${inMenuWords(l.replace(/^liken-stick: /, ""))}`);
}

// "blank, 8 GiB, model SAMSUNG MZ7L3960, serial S4EV, wwn 0x5002": what tells the disk apart.
function diskWords(d: Disk): string {
  return [
    d.verdict === "liken" ? undefined : d.verdict,
    formatSizeShort(d.size),
    d.model && `model ${d.model}`,
    d.serial && `serial ${d.serial}`,
    d.wwn && `wwn ${d.wwn}`,
  ]
    .filter(Boolean)
    .join(", ");
}

// "mirror member 1 of 2 of testcluster/leader-1, release 1.0.0, installed 2026-12-04 23:41 UTC"
function claimWords(d: Disk): string {
  const c = d.claim;
  if (!c) return "a member of the mirror";
  return `${claimOwner(c)}, release ${c.release}, installed ${utcMinute(c.createdAt)}`;
}
