// The hardware report the menu shows, saved to the stick's payload (the LIKEN-DATA partition
// the stick's /init mounts at /payload) as reports/<machine serial or uuid>.json, so the
// operator carries it away on the stick.
import { join } from "node:path";
import { writeFileAtomic } from "../common/atomic-file.ts";
import type { HwReport } from "./types.ts";

/** Where the stick keeps the reports: the payload's reports/ folder. */
export const PAYLOAD_REPORTS = "/payload/reports";

/** The name a saved report gets: the machine's serial, else its product UUID. */
export function reportFileName(report: Pick<HwReport, "system">): string {
  const id = report.system?.serial ?? report.system?.uuid ?? "unknown-machine";
  return `${id.replace(/[^A-Za-z0-9._-]/g, "_")}.json`;
}

/**
 * Writes the report (with `saved` set to its own path) to DIR/<serial or uuid>.json and
 * returns the path. A second report of the same machine replaces the first; a reader sees
 * one or the other, never a mix (temporary file, fsync, rename).
 */
export async function saveReport(report: HwReport, dir = PAYLOAD_REPORTS): Promise<string> {
  const file = join(dir, reportFileName(report));
  await writeFileAtomic(file, `${JSON.stringify({ ...report, saved: file }, null, 2)}\n`, 0o644);
  return file;
}
