// `plan` for people: per disk, a table of partitions with offsets and sizes, and a bar.
import { nameOfLabel, SYSTEM_LABELS } from "../../common/partition-labels.ts";
import { formatSizeShort } from "../../common/size.ts";
import { renderTable } from "../../common/table.ts";
import { mirrorPlace } from "../../formats/claim-words.ts";
import type { Layout, LeftOutDisk, PlanFailure, PlannedDisk } from "./types.ts";

const BAR_WIDTH = 64;
const ACTIONS = {
  write: "written from blank",
  resume: "interrupted install finished",
  "erase-and-write": "ERASED, then written",
};

export function renderLayout(layout: Layout): string {
  const out = [
    `Install ${layout.machine} of cluster ${layout.cluster}, release ${layout.release}${layout.wipe ? " (wipe and reinstall)" : ""}.`,
    `System disk: ${layout.systemDiskWhy}.`,
    "",
  ];
  for (const disk of layout.disks) out.push(...renderDisk(disk), "");
  if (layout.leftOut.length > 0) out.push("Not used:", ...renderLeftOut(layout.leftOut), "");
  return out.join("\n");
}

export function renderPlanFailure(f: PlanFailure): string {
  if (f.considered.length === 0) return "";
  return ["Disks considered:", ...renderLeftOut(f.considered), ""].join("\n");
}

function renderDisk(d: PlannedDisk): string[] {
  const who = [d.model, d.serial].filter(Boolean).join(" ");
  const use = d.mirror ? `system disk, ${mirrorPlace(d.mirror)}` : `${d.use} disk`;
  const title = `${d.path}  ${formatSizeShort(d.size)}${who ? `  ${who}` : ""}  ${use}, ${ACTIONS[d.action]}`;
  const rows = d.partitions.map((p) => [
    String(p.number),
    p.label,
    formatSizeShort(p.start),
    formatSizeShort(p.size),
    p.content === "storage" ? `storage role ${p.role}` : p.content,
  ]);
  return [
    title,
    renderTable(["#", "LABEL", "START", "SIZE", "CONTENT"], rows, "  "),
    `  ${bar(d)}`,
    `  ${legend(d)}`,
  ];
}

// One character per 1/64 of the disk; every partition gets at least one.
function bar(d: PlannedDisk): string {
  const cells = d.partitions.map((p) => ({
    c: symbol(p.label),
    n: Math.max(1, Math.round((p.size / d.size) * BAR_WIDTH)),
  }));
  const used = cells.reduce((a, x) => a + x.n, 0);
  const free = Math.max(d.free > 0 ? 1 : 0, BAR_WIDTH - used);
  return `[${cells.map((x) => x.c.repeat(x.n)).join("")}${".".repeat(d.free > 0 ? free : 0)}]`;
}

function legend(d: PlannedDisk): string {
  const parts = d.partitions.map((p) => `${symbol(p.label)} ${p.label}`);
  return [...parts, ...(d.free > 0 ? [`. free ${formatSizeShort(d.free)}`] : [])].join("  ");
}

// A system partition by its name's first letter in capitals (E A B J S), a storage role by
// its role's first letter in small letters.
function symbol(label: string): string {
  const first = (nameOfLabel(label) ?? "").slice(0, 1);
  return SYSTEM_LABELS.includes(label) ? first.toUpperCase() : first.toLowerCase();
}

function renderLeftOut(disks: readonly LeftOutDisk[]): string[] {
  return disks.map((d) => `  ${d.path} (${d.verdict}): ${d.why}`);
}
