// The TPM as sysfs shows it, without a command to it: the kernel's first TPM, its version,
// the interface its driver speaks (a TPM 2.0's Command Response Buffer, as a firmware TPM
// offers, or the TIS of a discrete chip), and the event log the firmware left, when it is
// there to read (securityfs mounted, as the stick's root does).
import { accessSync, constants, readdirSync, readFileSync, readlinkSync } from "node:fs";
import { basename, join } from "node:path";
import { orNull } from "../../common/or-null.ts";
import type { SysfsReader } from "./option-roms.ts";

export const TPM_DEVICE = "sys/class/tpm/tpm0";
/** Where the kernel shows the firmware's event log of tpm0. */
export const TPM_EVENT_LOG = "sys/kernel/security/tpm0/binary_bios_measurements";

export interface TpmPresence {
  /** `2.0`, `1.2`, or null when the kernel does not say (before 5.6). */
  readonly version: "2.0" | "1.2" | null;
  /** The kernel's driver: `tpm_crb`, `tpm_tis`, `tpm_tis_spi`, ...; null when unbound. */
  readonly driver: string | null;
  /** The TPM's maker as a TPM 1.2 tells sysfs (its caps file); null for a TPM 2.0. */
  readonly manufacturer: string | null;
  /** The event log's path on the machine, when it can be read; null when it cannot. */
  readonly eventLog: string | null;
}

/** The TPM under `root` ("/" on a machine, a fixture tree in tests); null when there is none. */
export function readTpmPresence(root = "/"): TpmPresence | null {
  const sysfs = sysfsAt(root);
  if (sysfs.list(TPM_DEVICE).length === 0) return null;
  const major = sysfs.text(`${TPM_DEVICE}/tpm_version_major`);
  const readable =
    orNull(() => {
      accessSync(join(root, TPM_EVENT_LOG), constants.R_OK);
      return true;
    }) ?? false;
  return {
    version: major === "2" ? "2.0" : major === "1" ? "1.2" : null,
    driver: sysfs.linkName(`${TPM_DEVICE}/device/driver`),
    manufacturer: capsManufacturer(
      sysfs.text(`${TPM_DEVICE}/caps`) ?? sysfs.text(`${TPM_DEVICE}/device/caps`),
    ),
    eventLog: readable ? `/${TPM_EVENT_LOG}` : null,
  };
}

/** The event log's bytes under `root`; null when it cannot be read. */
export function readEventLogBytes(root = "/"): Buffer | null {
  return orNull(() => readFileSync(join(root, TPM_EVENT_LOG)));
}

// A TPM 1.2's caps: "Manufacturer: 0x49465800" (the vendor's four ASCII letters, "IFX").
function capsManufacturer(caps: string | null): string | null {
  const m = /^Manufacturer: 0x([0-9a-fA-F]{8})$/m.exec(caps ?? "");
  if (!m?.[1]) return null;
  const letters = Buffer.from(m[1], "hex")
    .toString("latin1")
    .replace(/[\0 ]+$/, "");
  return /^[\x21-\x7e]+$/.test(letters) ? letters : `0x${m[1]}`;
}

/** sysfs under `root`, as the option-ROM finding reads it. */
export function sysfsAt(root: string): SysfsReader {
  return {
    list: (path) => orNull(() => readdirSync(join(root, path)).sort()) ?? [],
    text: (path) => {
      const value = orNull(() => readFileSync(join(root, path), "utf8"))?.trim();
      return value ? value : null;
    },
    linkName: (path) => {
      const target = orNull(() => readlinkSync(join(root, path)));
      return target === null ? null : basename(target);
    },
  };
}
