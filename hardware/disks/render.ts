// `disks` for people: one row per disk, and below the table what to do where a reason
// alone would leave the reader guessing.
import { formatSizeShort } from "../../common/size.ts";
import { renderTable } from "../../common/table.ts";
import { claimOwnerBeside } from "../../formats/claim-words.ts";
import type { Disk } from "./types.ts";

export function renderDisks(disks: readonly Disk[]): string {
  if (disks.length === 0) return "No disks found.\n";
  const rows = disks.map((d) => [
    d.path,
    formatSizeShort(d.size),
    d.model ?? "-",
    d.serial ?? "-",
    d.verdict,
    [
      ...(d.claim ? [`${claimOwnerBeside(d.claim)} release ${d.claim.release}`] : []),
      ...d.reasons,
    ].join(", ") || "-",
  ]);
  const table = renderTable(["PATH", "SIZE", "MODEL", "SERIAL", "VERDICT", "REASONS"], rows);
  return `${[table, ...multipathNotes(disks)].join("\n")}\n`;
}

// Two paths to one disk read ineligible, both of them; the reason names the other path, and
// the fix is on the machine, not in liken.
function multipathNotes(disks: readonly Disk[]): string[] {
  const groups = new Map<string, string[]>();
  for (const d of disks) {
    const paths = [d.path, ...d.reasons.flatMap((r) => r.match(/^multipath:(.+)$/)?.[1] ?? [])];
    if (paths.length > 1) groups.set(paths.sort().join(" "), paths);
  }
  return [...groups.values()].map(
    (paths) =>
      `${paths.slice(0, -1).join(", ")} and ${paths.at(-1)} are one disk (the same WWN) seen through ${paths.length} paths: install through one path, with the other cable or HBA taken out.`,
  );
}
