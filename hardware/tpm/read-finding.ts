// The option-ROM finding of this machine: its TPM, the event log the firmware left, and
// sysfs to name the devices (option-roms.ts judges; this reads).
import type { PciIds, PciNames } from "../../formats/pci-ids.ts";
import { EventLogError, parseEventLog } from "./event-log.ts";
import { type OptionRomFinding, optionRomFinding } from "./option-roms.ts";
import { readEventLogBytes, sysfsAt, type TpmPresence } from "./presence.ts";

/** The finding under `root` ("/" on a machine) for the TPM `presence` found there. */
export function readOptionRomFinding(
  root: string,
  presence: TpmPresence | null,
  pciNames: (ids: readonly PciIds[]) => PciNames,
): OptionRomFinding {
  if (!presence) return { kind: "unknown", why: "no TPM", detail: null };
  const bytes = presence.eventLog === null ? null : readEventLogBytes(root);
  if (!bytes) return { kind: "unknown", why: "no event log", detail: null };
  try {
    return optionRomFinding(parseEventLog(bytes), sysfsAt(root), pciNames);
  } catch (error) {
    if (!(error instanceof EventLogError)) throw error;
    return { kind: "unknown", why: "unreadable event log", detail: error.message };
  }
}
