// The report's TPM section: the TPM as sysfs shows it, who made it (a TPM 2.0 says so
// itself, hardware/tpm/properties.ts), and the option-ROM finding of its event log
// (hardware/tpm/), the same finding the stick's Secure Boot enrollment acts on.
import type { PciIds, PciNames } from "../formats/pci-ids.ts";
import { readTpmPresence } from "../hardware/tpm/presence.ts";
import { type TpmIdentity, tpmProperties } from "../hardware/tpm/properties.ts";
import { readOptionRomFinding } from "../hardware/tpm/read-finding.ts";
import { openTpmDevice } from "../hardware/tpm/transport.ts";
import { withDeadline } from "./inventory.ts";
import type { TpmReport } from "./types.ts";

// GetCapability is answered at once; a TPM that takes longer leaves its maker unknown
// rather than holding up the report.
const IDENTITY_DEADLINE_MS = 3_000;

/** Asks the machine's TPM 2.0 who made it, through the kernel's /dev/tpmrm0. */
export async function askTpmIdentity(): Promise<TpmIdentity> {
  const tpm = await openTpmDevice();
  try {
    return await tpmProperties(tpm);
  } finally {
    await tpm.close();
  }
}

/**
 * The TPM under `root` ("/" on a machine, a fixture tree in tests); `identify` asks a TPM
 * 2.0 who made it, where there is one to ask.
 */
export async function readTpmReport(
  root: string,
  pciNames: (ids: readonly PciIds[]) => PciNames,
  identify?: () => Promise<TpmIdentity>,
): Promise<TpmReport> {
  const presence = readTpmPresence(root);
  const asked =
    presence?.version === "2.0" && identify
      ? await withDeadline(identify(), IDENTITY_DEADLINE_MS)
      : null;
  const identity = asked?.ok ? asked.value : null;
  return {
    present: presence !== null,
    version: presence?.version ?? null,
    driver: presence?.driver ?? null,
    manufacturer: identity?.manufacturer || (presence?.manufacturer ?? null),
    firmware: identity?.firmware ?? null,
    eventLog: presence?.eventLog ?? null,
    optionRoms: readOptionRomFinding(root, presence, pciNames),
  };
}
