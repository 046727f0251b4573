// The plan as the confirmation screens show it. A machine may have two dozen disks and the
// console 24 rows, so the text leads with what the question is about: the disks written, each
// with what tells it from its twins, and the disks left out only counted by verdict. The
// partition tables and each left-out disk with why follow, for whoever scrolls on.
import { formatSizeShort } from "../common/size.ts";
import { mirrorPlace } from "../formats/claim-words.ts";
import type { Verdict } from "../hardware/disks/index.ts";
import { renderLayout } from "../installer/plan/render.ts";
import type { Layout, LeftOutDisk, PlannedDisk } from "../installer/plan/types.ts";
import { inMenuWords } from "./menu-words.ts";

const ACTIONS = {
  write: "written from blank",
  resume: "interrupted install finished",
  "erase-and-write": "ERASED, then written",
};

// Ties in the count keep this order: the verdicts an operator may want to act on first.
const VERDICTS: readonly Verdict[] = ["blank", "liken", "unsupported", "foreign", "ineligible"];

/** The confirmation's text, one string per line, before wrapping. */
export function layoutText(layout: Layout): string[] {
  // renderLayout's first paragraph says what is installed and why the system disk is the one
  // it is; its other paragraphs, one per written disk, are the partition tables.
  const [intro = "", ...tables] = renderLayout({ ...layout, leftOut: [] })
    .trimEnd()
    .split("\n\n");
  const groups = byVerdict(layout.leftOut);
  return [
    ...intro.split("\n"),
    "",
    `It writes ${count(layout.disks.length, "disk")}:`,
    ...layout.disks.flatMap(writtenLines),
    ...(groups.length > 0 ? [leftOutSummary(groups)] : []),
    ...tables.flatMap((t) => ["", ...t.split("\n")]),
    ...(groups.length > 0
      ? [
          "",
          "Left out:",
          ...groups.flatMap((g) =>
            g.disks.map((d) => `  ${d.path} (${d.verdict}): ${inMenuWords(d.why)}`),
          ),
        ]
      : []),
  ];
}

/** A written disk: what it becomes, then what tells it from a disk of the same model. */
function writtenLines(d: PlannedDisk): string[] {
  const roles = d.partitions.flatMap((p) => (p.role ? [p.role] : []));
  // A member's place as its claim will name it; the other member is the line above or below.
  const what = [
    `${d.use} disk`,
    ...(d.mirror ? [mirrorPlace(d.mirror)] : []),
    ...(roles.length > 0 ? [`${roles.length === 1 ? "role" : "roles"} ${list(roles)}`] : []),
  ].join(", ");
  const known = [
    ...(d.model ? [`model ${d.model}`] : []),
    ...(d.serial ? [`serial ${d.serial}`] : []),
    ...(d.wwn ? [`wwn ${d.wwn}`] : []),
  ];
  // An image file has no model, serial or WWN to show; a block device without them is told
  // apart by its path alone, and the operator should know that.
  const who =
    known.length > 0 ? known.join("  ") : d.kind === "block" ? "no model, serial or WWN known" : "";
  return [
    `  ${d.path}  ${formatSizeShort(d.size)}  ${what}, ${ACTIONS[d.action]}`,
    ...(who ? [`    ${who}`] : []),
  ];
}

interface Group {
  readonly verdict: Verdict;
  readonly disks: readonly LeftOutDisk[];
}

function byVerdict(leftOut: readonly LeftOutDisk[]): Group[] {
  return VERDICTS.map((verdict) => ({
    verdict,
    disks: leftOut.filter((d) => d.verdict === verdict),
  }))
    .filter((g) => g.disks.length > 0)
    .sort((a, b) => b.disks.length - a.disks.length);
}

function leftOutSummary(groups: readonly Group[]): string {
  const total = groups.reduce((n, g) => n + g.disks.length, 0);
  const counts = groups.map((g) => `${g.disks.length} ${g.verdict}`).join(", ");
  return `Left out: ${count(total, "disk")} (${counts}), each with why below.`;
}

function count(n: number, what: string): string {
  return `${n} ${what}${n === 1 ? "" : "s"}`;
}

function list(items: readonly string[]): string {
  return items.length < 2
    ? items.join("")
    : `${items.slice(0, -1).join(", ")} and ${items[items.length - 1]}`;
}
