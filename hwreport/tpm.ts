// The report's TPM section: the TPM as sysfs shows it and the option-ROM finding of its
// event log (hardware/tpm/), the same finding the stick's Secure Boot enrollment acts on.
import type { PciIds, PciNames } from "../formats/pci-ids.ts";
import { readTpmPresence } from "../hardware/tpm/presence.ts";
import { readOptionRomFinding } from "../hardware/tpm/read-finding.ts";
import type { TpmReport } from "./types.ts";

/** The TPM under `root` ("/" on a machine, a fixture tree in tests). */
export function readTpmReport(
  root: string,
  pciNames: (ids: readonly PciIds[]) => PciNames,
): TpmReport {
  const presence = readTpmPresence(root);
  return {
    present: presence !== null,
    version: presence?.version ?? null,
    driver: presence?.driver ?? null,
    manufacturer: presence?.manufacturer ?? null,
    eventLog: presence?.eventLog ?? null,
    optionRoms: readOptionRomFinding(root, presence, pciNames),
  };
}
