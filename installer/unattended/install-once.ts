// The install of the unattended flow (run.ts), once per machine (`liken.install=NAME`). Before
// anything is written, the machine's disks are read: a complete install whose install id the
// stick recorded means the stick already did its job, and nothing is written or wiped (a
// stick left in must not reinstall, or wipe, at every power-on). Otherwise it installs,
// records the install on the stick, and either way the installed disk is made the next boot.
import { readFile } from "node:fs/promises";
import { writeFileAtomic } from "../../common/atomic-file.ts";
import { LikenError } from "../../common/errors.ts";
import {
  EMPTY_STICK_RECORD,
  encodeStickRecord,
  parseStickRecord,
  recordsInstall,
  type StickRecord,
  withInstall,
} from "../../formats/stick-record.ts";
import { type Disk, inventoryDisks } from "../../hardware/disks/index.ts";
import { bootName } from "../../hardware/efi-vars.ts";
import type { Manifest } from "../../manifest/types.ts";
import { bootDiskNext } from "../boot-next.ts";
import { type InstallEvent, install } from "../install.ts";
import type { PlannedDisk } from "../plan/types.ts";
import { survivingMember } from "../repair/plan-repair.ts";
import { repairMirror } from "../repair/repair.ts";

export interface InstallOnceRequest {
  readonly manifest: Manifest;
  readonly machine: string;
  readonly releaseDir: string;
  readonly wipe: boolean;
  /** Repair the machine's mirror (`liken.repair=1`) in place of the install. */
  readonly repair?: boolean;
  /** The disks to look at and install on; empty means every disk of the machine. */
  readonly paths: readonly string[];
  readonly statusFile: string;
  /** The stick's record of its installs (formats/stick-payload.ts: on the payload, or in memory). */
  readonly recordFile: string;
  /** The efivarfs mount; tests give a folder. */
  readonly efivars?: string;
  /** Only for the words: "booting it", or "it boots at the next power-on". */
  readonly then: "reboot" | "poweroff";
  /** Each line for the consoles. */
  readonly say: (line: string) => void;
  readonly onEvent?: (event: InstallEvent) => void;
  /** Where the recovery key of an encrypted install can go (install.ts). */
  readonly recoveryTo?: readonly ("report" | "console")[];
}

export type InstallOnceOutcome =
  /** A disk holds an install this stick recorded: nothing was written. */
  | {
      readonly result: "recorded";
      readonly installId: string;
      readonly machine: string;
      readonly disk: string;
      readonly bootEntry: number;
    }
  /** The install found this machine already installed (not by this stick): nothing was written. */
  | { readonly result: "already-installed"; readonly disk: string; readonly bootEntry: number }
  | {
      readonly result: "installed";
      /** [encryption]: the one recovery key, for the caller to send or show once. */
      readonly recoveryKey?: string;
      readonly installId: string;
      readonly disk: string;
      readonly bootEntry: number;
    }
  /** The mirror was repaired, or found whole (nothing written). */
  | { readonly result: "repaired" | "whole"; readonly disk: string; readonly bootEntry: number };

export async function installOnce(request: InstallOnceRequest): Promise<InstallOnceOutcome> {
  const { say } = request;
  const next = request.then === "reboot" ? "booting it" : "it boots at the next power-on";
  const record = await readRecord(request.recordFile);
  const disks = await inventoryDisks({ paths: request.paths });
  if (request.repair) return repairOnce(request, disks, next);
  const recorded = disks.find(
    (d) =>
      d.verdict === "liken" &&
      d.claim?.complete === true &&
      d.claim.use === "system" &&
      recordsInstall(record, d.claim.installId),
  );
  if (recorded?.claim) {
    const { installId, machine, cluster } = recorded.claim;
    say(
      `liken-stick: this machine already holds install ${installId} (${machine}) from this stick; nothing written; ${next}`,
    );
    const bootEntry = await bootNext(request, {
      path: recorded.path,
      ...peerOf(recorded, disks),
      cluster,
      machine,
    });
    return { result: "recorded", installId, machine, disk: recorded.path, bootEntry };
  }

  const outcome = await install({
    manifest: request.manifest,
    machine: request.machine,
    releaseDir: request.releaseDir,
    wipe: request.wipe,
    paths: request.paths,
    statusFile: request.statusFile,
    ...(request.onEvent ? { onEvent: request.onEvent } : {}),
    ...(request.recoveryTo ? { recoveryTo: request.recoveryTo } : {}),
  });
  const target = { cluster: request.manifest.cluster, machine: request.machine };
  if (outcome.result === "already-installed") {
    const { path } = outcome.disk;
    say(
      `liken-stick: ${path} already holds ${request.machine} with release ${request.manifest.release.version}, not installed by this stick; nothing written; ${next}`,
    );
    const bootEntry = await bootNext(request, { path, ...peerOf(outcome.disk, disks), ...target });
    return { result: "already-installed", disk: path, bootEntry };
  }
  const [system, peer] = outcome.layout.disks.filter((d) => d.use === "system") as [
    PlannedDisk,
    PlannedDisk | undefined,
  ];
  const { installId } = outcome.layout;
  const on = peer ? `${system.path} and ${peer.path} (mirrored)` : system.path;
  say(`liken-stick: installed as ${request.machine} on ${on}, install ${installId}`);
  await writeRecord(
    request.recordFile,
    withInstall(record, {
      installId,
      cluster: request.manifest.cluster,
      machine: request.machine,
      release: request.manifest.release.version,
      installedAt: new Date().toISOString().replace(/\.\d+Z$/, "Z"),
      systemDisk: diskIdentity(system.path, disks),
    }),
  );
  say(`liken-stick: recorded install ${installId} in ${request.recordFile}`);
  const bootEntry = await bootNext(request, {
    path: system.path,
    ...(peer ? { mirrorPeer: peer.path } : {}),
    ...target,
  });
  const { recoveryKey } = outcome;
  return {
    result: "installed",
    installId,
    disk: system.path,
    bootEntry,
    ...(recoveryKey ? { recoveryKey } : {}),
  };
}

// liken.repair=1: the mirror of the machine made whole, once; a stick left in finds it whole
// at the next power-on and writes nothing. Either way member 1 boots next.
async function repairOnce(
  request: InstallOnceRequest,
  disks: readonly Disk[],
  next: string,
): Promise<InstallOnceOutcome> {
  const { manifest, machine, say } = request;
  const target = { cluster: manifest.cluster, machine };
  const found = survivingMember({ disks, manifest, machine });
  let members: [string, string];
  let result: "repaired" | "whole";
  if ("survivor" in found) {
    const repaired = await repairMirror({
      manifest,
      machine,
      paths: request.paths,
      ...(request.efivars ? { efivars: request.efivars } : {}),
      say,
    });
    const { survivor, target: taken } = repaired;
    members = repaired.member === 2 ? [survivor, taken] : [taken, survivor];
    result = "repaired";
  } else {
    const [one, two, ...more] = disks
      .filter(
        (d) =>
          d.claim?.mirror && d.claim.cluster === manifest.cluster && d.claim.machine === machine,
      )
      .sort((a, b) => (a.claim?.mirror?.member ?? 0) - (b.claim?.mirror?.member ?? 0));
    if (!one || !two || more.length > 0)
      throw new LikenError({
        kind: "refused",
        what: found.what,
        hint: found.hint,
        reason: found.reason,
      });
    say(`liken-stick: ${found.what}; nothing written; ${next}`);
    members = [one.path, two.path];
    result = "whole";
  }
  const [first, mirrorPeer] = members;
  const bootEntry = await bootNext(request, { path: first, mirrorPeer, ...target });
  return { result, disk: first, bootEntry };
}

async function bootNext(
  request: InstallOnceRequest,
  target: { path: string; mirrorPeer?: string; cluster: string; machine: string },
): Promise<number> {
  const [number, second] = await bootDiskNext({
    ...target,
    ...(request.efivars ? { efivars: request.efivars } : {}),
  });
  const also =
    target.mirrorPeer && second !== undefined
      ? `, then ${target.mirrorPeer} (${bootName(second)}) when it cannot`
      : "";
  request.say(
    `liken-stick: the firmware boots ${target.path} next (${bootName(number as number)})${also}`,
  );
  return number as number;
}

// The other member of the mirror `disk` belongs to, when it is here.
function peerOf(disk: Disk, disks: readonly Disk[]): { mirrorPeer?: string } {
  if (!disk.claim?.mirror) return {};
  const peer = disks.find(
    (d) => d !== disk && d.claim?.installId === disk.claim?.installId && d.claim?.mirror,
  );
  return peer ? { mirrorPeer: peer.path } : {};
}

async function readRecord(file: string): Promise<StickRecord> {
  const text = await readFile(file, "utf8").catch((error: NodeJS.ErrnoException) => {
    if (error.code === "ENOENT") return undefined;
    throw error;
  });
  return text === undefined ? EMPTY_STICK_RECORD : parseStickRecord(text, file);
}

// On the stick's FAT the mode is ignored; 0644 is what FAT shows anyway.
function writeRecord(file: string, record: StickRecord): Promise<void> {
  return writeFileAtomic(file, encodeStickRecord(record), 0o644);
}

function diskIdentity(path: string, disks: readonly Disk[]) {
  const disk = disks.find((d) => d.path === path);
  return { path, serial: disk?.serial ?? null, wwn: disk?.wwn ?? null };
}
