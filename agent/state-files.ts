// Where the boot agent mounts things and what it keeps on the state partition: its boot
// record between boots, the status document (also in /run), and the installer's identity.
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { writeFileAtomic } from "../common/atomic-file.ts";
import { type BootIdentity, parseBootIdentity } from "../formats/identity.ts";
import { parseBootRecord, parsePreviousStatus } from "./state-documents.ts";
import type { MachineStatus } from "./status.ts";
import type { BootRecord } from "./types.ts";

export const ESP = "/run/liken/esp";
export const STATE = "/state";
export const UPDATE = "/run/liken/update";
export const PSTORE = "/sys/fs/pstore";
/** Marks a trial for the root's init: an agent that dies during a trial makes it reset the machine. */
export { TRIAL_MARK } from "../formats/boot-interface.ts";

const RUN_STATUS = "/run/liken/status.json";
const STATE_STATUS = join(STATE, "status/status.json");
const STATE_RECORD = join(STATE, "boot/record.json");

export async function readPreviousStatus(): Promise<MachineStatus | null> {
  return parsePreviousStatus(await readFile(STATE_STATUS, "utf8").catch(() => ""));
}

export async function readRecord(): Promise<BootRecord | null> {
  return parseBootRecord(await readFile(STATE_RECORD, "utf8").catch(() => ""));
}

/** identity.json as the boot agent reads it; the defaults when the state did not mount. */
export async function readIdentity(): Promise<BootIdentity> {
  return parseBootIdentity(await readFile(join(STATE, "identity.json"), "utf8").catch(() => null));
}

export async function saveRecord(record: BootRecord): Promise<boolean> {
  return writeFileAtomic(STATE_RECORD, `${JSON.stringify(record, null, 2)}\n`).then(
    () => true,
    () => false,
  );
}

export async function writeStatus(status: MachineStatus, toState: boolean): Promise<void> {
  const text = `${JSON.stringify(status, null, 2)}\n`;
  await writeFileAtomic(RUN_STATUS, text);
  if (toState) await writeFileAtomic(STATE_STATUS, text).catch(() => undefined);
}
