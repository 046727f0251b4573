// The hardware report as the command and the stick's menu produce it: read the release the
// report judges against, build the report, and save a copy when asked. Parsing arguments
// is the caller's business; this takes values.

import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { LikenError } from "../common/errors.ts";
import { describeFileError, findFileError } from "../common/file-errors.ts";
import { RELEASE_UKI, requireBootModules, requireRelease } from "../formats/release.ts";
import { listenForNeighbors } from "../hardware/lldp-neighbors.ts";
import type { Manifest } from "../manifest/types.ts";
import { buildReport } from "./report.ts";
import { saveReport } from "./save-report.ts";
import type { HwReport, NicReport } from "./types.ts";

export interface ReportRequest {
  readonly manifest?: Manifest;
  /** The manifest machine this one is; every machine when absent. */
  readonly machine?: string;
  /** The release whose boot path the disks and NICs are judged against. */
  readonly releaseDir?: string;
  /** Also write the JSON to DIR/<serial or uuid>.json. */
  readonly saveDir?: string;
  /** Listen this long on each NIC with carrier for its switch's LLDP; not at all when absent. */
  readonly lldpMs?: number;
}

export interface ProducedReport {
  /** The report, with `saved` set when the copy was written. */
  readonly report: HwReport;
  /** Why the copy was not written, when saveDir was given and the write failed. */
  readonly notSaved?: LikenError;
}

export async function produceReport(request: ReportRequest): Promise<ProducedReport> {
  const release = request.releaseDir ? await readRelease(request.releaseDir) : undefined;
  const report = await buildReport({
    ...(request.manifest ? { manifest: request.manifest } : {}),
    ...(request.machine ? { machine: request.machine } : {}),
    ...(release ? { release } : {}),
    ...(request.lldpMs ? { neighbors: neighborsFor(request.lldpMs, request.machine) } : {}),
  });
  if (!request.saveDir) return { report };
  const dir = request.saveDir;
  try {
    return { report: { ...report, saved: await saveReport(report, dir) } };
  } catch (error) {
    // An ISO's filesystem, or the payload a netboot fetched into memory and made read-only.
    if ((error as NodeJS.ErrnoException).code === "EROFS") {
      const notSaved = new LikenError({
        kind: "failed",
        what: `the report was not saved to ${dir}: the medium is read-only (an ISO, or the network's payload)`,
        hint: "read it here, or boot the machine from a stick to carry its report away",
        cause: error,
      });
      return { report, notSaved };
    }
    const notSaved = new LikenError({
      kind: "failed",
      what: `the report was not saved to ${dir}: ${fileErrorWords(error)}`,
      hint: "check that the folder is on a writable disk and the stick is not write-protected, then run it again",
      cause: error,
    });
    return { report, notSaved };
  }
}

// "cannot open /x/y.json: permission denied", not Node's "EACCES: permission denied, open ...".
function fileErrorWords(error: unknown): string {
  const errno = findFileError(error);
  return errno ? describeFileError(errno).what : (error as Error).message;
}

function neighborsFor(ms: number, machine: string | undefined) {
  return (nics: readonly NicReport[]) =>
    listenForNeighbors(
      nics.map((n) => ({ kernelName: n.kernelName, name: n.name, mac: n.mac })),
      ms,
      `liken-stick${machine ? ` ${machine}` : ""}`,
    );
}

/** The release's version, rootfs size, boot-modules.json and signed image. */
async function readRelease(dir: string) {
  const release = await requireRelease(dir);
  return {
    version: release.version,
    rootfsSize: release.rootfsSize,
    arch: release.arch,
    modules: await requireBootModules(release),
    image: release.signed ? await readFile(join(dir, RELEASE_UKI)) : null,
  };
}
