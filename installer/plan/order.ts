// Which disk comes first, and which disks a manifest's system_disk selector picks. Both must
// give the same answer on every boot, so they use only stable properties.
import { formatSize } from "../../common/size.ts";
import type { Disk } from "../../hardware/disks/types.ts";
import { wwnKey, wwnPattern } from "../../hardware/disks/wwn.ts";
import type { DiskSelector } from "../../manifest/types.ts";

// Faster, more likely internal buses first; unknown transports (virtio, image files) last.
const TRANSPORT_RANK = ["nvme", "sata", "sas", "scsi", "ata"];

/** Stable disk order: transport, then serial, then WWN, then path. */
export function compareDisks(a: Disk, b: Disk): number {
  return (
    rank(a) - rank(b) ||
    compareOptional(a.serial, b.serial) ||
    compareOptional(a.wwn, b.wwn) ||
    (a.path < b.path ? -1 : a.path > b.path ? 1 : 0)
  );
}

function rank(d: Disk): number {
  const i = TRANSPORT_RANK.indexOf(d.transport ?? "");
  return i === -1 ? TRANSPORT_RANK.length : i;
}

// Disks without the property sort after those with it.
function compareOptional(a: string | undefined, b: string | undefined): number {
  if (a === b) return 0;
  if (a === undefined) return 1;
  if (b === undefined) return -1;
  return a < b ? -1 : 1;
}

/**
 * Whether a disk matches every key of a selector; globs (*, ?) match case-insensitively, and
 * a WWN with or without its `0x`, `naa.` or `eui.` prefix.
 */
export function matchesSelector(d: Disk, s: DiskSelector): boolean {
  const globs: [string | undefined, string | undefined][] = [
    [s.serial, d.serial],
    [s.model, d.model],
    [s.wwn === undefined ? undefined : wwnPattern(s.wwn), wwnKey(d.wwn)],
    [s.transport, d.transport],
    [s.path, d.path],
  ];
  for (const [pattern, value] of globs) {
    if (pattern !== undefined && (value === undefined || !globToRegExp(pattern).test(value)))
      return false;
  }
  if (s.min_size !== undefined && d.size < s.min_size) return false;
  if (s.max_size !== undefined && d.size > s.max_size) return false;
  return true;
}

/** The selector as the manifest writes it, for messages: `{ serial = "S4EV*" }`. */
export function describeSelector(s: DiskSelector): string {
  const parts = Object.entries(s).map(
    ([k, v]) => `${k} = ${JSON.stringify(typeof v === "number" ? formatSize(v) : v)}`,
  );
  return `{ ${parts.join(", ")} }`;
}

function globToRegExp(glob: string): RegExp {
  const body = [...glob]
    .map((c) => (c === "*" ? ".*" : c === "?" ? "." : c.replace(/[.+^${}()|[\]\\]/g, "\\$&")))
    .join("");
  return new RegExp(`^${body}$`, "is");
}
