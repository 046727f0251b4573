// The hardware report the menu shows, saved to the stick's payload (the LIKEN-DATA partition
// the stick's /init mounts, formats/stick-payload.ts) as reports/<name>.json, so the
// operator carries it away on the stick. One stick goes from machine to machine, so the
// name must be one two machines cannot share: a report saved under another machine's name
// would replace it.
import { createHash } from "node:crypto";
import { join } from "node:path";
import { writeFileAtomic } from "../common/atomic-file.ts";
import { STICK_PAYLOAD } from "../formats/stick-payload.ts";
import type { HwReport, NicReport } from "./types.ts";

type Named = Pick<HwReport, "system" | "nics" | "disks" | "cpu" | "memory">;

/**
 * The name a saved report gets, the first of: the machine's serial; its product UUID;
 * `board-<serial>` of its baseboard; `mac-<MAC>` of its lowest built-in NIC's address (a
 * USB adapter is carried from machine to machine, so one is used only when nothing else
 * has an address); `hardware-<digest>` of what the report found (docs/hwreport.md).
 */
export function reportFileName(report: Named): string {
  return `${machineName(report).replace(/[^A-Za-z0-9._-]/g, "_")}.json`;
}

function machineName(report: Named): string {
  const system = report.system;
  if (system?.serial) return system.serial;
  if (system?.uuid) return system.uuid;
  if (system?.baseboard.serial) return `board-${system.baseboard.serial}`;
  const mac = lowestMac(report.nics);
  if (mac) return `mac-${mac.replaceAll(":", "")}`;
  return `hardware-${hardwareDigest(report)}`;
}

function lowestMac(nics: readonly NicReport[]): string | null {
  const withMac = nics.filter((n) => n.mac && !/^(00:){5}00$/.test(n.mac));
  const builtIn = withMac.filter((n) => !n.chain.some((l) => l.subsystem === "usb"));
  const macs = (builtIn.length > 0 ? builtIn : withMac).map((n) => n.mac!.toLowerCase()).sort();
  return macs[0] ?? null;
}

/**
 * 12 hex digits of a SHA-256 of the parts that stay with the machine: its fixed disks
 * (model, serial, WWN, size; removable ones such as the stick move), its NICs' addresses,
 * the CPU, the memory and the system's maker and product. Two machines share it only when
 * they have the same parts and none of them has a serial.
 */
function hardwareDigest(report: Named): string {
  const parts = {
    system: [report.system?.manufacturer ?? null, report.system?.product ?? null],
    disks: report.disks
      .filter((d) => !d.removable)
      .map((d) => [d.model, d.serial, d.wwn, d.size])
      .sort(),
    macs: report.nics.map((n) => n.mac).sort(),
    cpu: report.cpu ? [report.cpu.brand, report.cpu.cores, report.cpu.sockets] : null,
    memory: report.memory?.total ?? null,
  };
  return createHash("sha256").update(JSON.stringify(parts)).digest("hex").slice(0, 12);
}

/**
 * Writes the report (with `saved` set to its own path) to DIR/<name>.json and returns the
 * path. A second report of the same machine replaces the first; a reader sees one or the
 * other, never a mix (temporary file, fsync, rename).
 */
export async function saveReport(
  report: HwReport,
  dir: string = STICK_PAYLOAD.reports,
): Promise<string> {
  const file = join(dir, reportFileName(report));
  await writeFileAtomic(file, `${JSON.stringify({ ...report, saved: file }, null, 2)}\n`, 0o644);
  return file;
}
