// Where the boot agent mounts things and what it keeps on the state partition: its boot
// record between boots, the status document (also in /run), and the installer's identity.
// The files' paths and shapes are the disk's contract, in formats/.
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { writeFileAtomic } from "../common/atomic-file.ts";
import { type BootRecord, bootRecordText, parseBootRecord } from "../formats/boot-record.ts";
import { type BootIdentity, parseBootIdentity } from "../formats/identity.ts";
import {
  type MachineStatus,
  machineStatusText,
  parseMachineStatus,
} from "../formats/machine-status.ts";
import { STATE_FILES } from "../formats/state-partition.ts";

export const ESP = "/run/liken/esp";
export const STATE = "/state";
export const UPDATE = "/run/liken/update";
export const PSTORE = "/sys/fs/pstore";
/** The other disk of a mirrored system disk: its ESP and state partition (agent/mirror-peer.ts). */
export const PEER_ESP = "/run/liken/mirror/esp";
export const PEER_STATE = "/run/liken/mirror/state";
/** Marks a trial for the root's init: an agent that dies during a trial makes it reset the machine. */
export { TRIAL_MARK } from "../formats/boot-interface.ts";

const RUN_STATUS = "/run/liken/status.json";
const STATE_STATUS = join(STATE, STATE_FILES.machineStatus);
const STATE_RECORD = join(STATE, STATE_FILES.bootRecord);

/** spec.toml on the state partition. */
export const STATE_SPEC = join(STATE, STATE_FILES.spec);
/** An update medium names its spec as the state partition does (docs/rollback.md). */
export const UPDATE_SPEC = join(UPDATE, STATE_FILES.spec);

export async function readPreviousStatus(): Promise<MachineStatus | null> {
  // No earlier status (a first boot, or the state did not mount): conditions start fresh.
  return parseMachineStatus(await readFile(STATE_STATUS, "utf8").catch(() => ""));
}

/** The status document this boot wrote (/run/liken/status.json); null when none. */
export async function readRunStatus(): Promise<MachineStatus | null> {
  // No document in /run: the boot wrote none, and the watch has none to keep up to date.
  return parseMachineStatus(await readFile(RUN_STATUS, "utf8").catch(() => ""));
}

export async function readRecord(): Promise<BootRecord | null> {
  // No record (a first boot, or the state did not mount) is the empty record.
  return parseBootRecord(await readFile(STATE_RECORD, "utf8").catch(() => ""));
}

/** identity.json as the boot agent reads it; the defaults when the state did not mount. */
export async function readIdentity(): Promise<BootIdentity> {
  // No identity.json (the state did not mount): the parser gives the defaults.
  const text = await readFile(join(STATE, STATE_FILES.identity), "utf8").catch(() => null);
  return parseBootIdentity(text);
}

export async function saveRecord(record: BootRecord): Promise<boolean> {
  // false tells the trial the state partition takes no writes: its health check fails on it.
  return writeFileAtomic(STATE_RECORD, bootRecordText(record)).then(
    () => true,
    () => false,
  );
}

export async function writeStatus(status: MachineStatus, toState: boolean): Promise<void> {
  const text = machineStatusText(status);
  await writeFileAtomic(RUN_STATUS, text);
  // Best effort: /run's copy is written; a state taking no writes fails the trial's check.
  if (toState) await writeFileAtomic(STATE_STATUS, text).catch(() => undefined);
}
