// `disks` for people: one row per disk.
import { formatSizeShort } from "../../common/size.ts";
import { renderTable } from "../../common/table.ts";
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
      ...(d.claim ? [`${d.claim.cluster}/${d.claim.machine} release ${d.claim.release}`] : []),
      ...d.reasons,
    ].join(", ") || "-",
  ]);
  return `${renderTable(["PATH", "SIZE", "MODEL", "SERIAL", "VERDICT", "REASONS"], rows)}\n`;
}
