// Who made the TPM and its firmware, for the hardware report: the fixed properties of
// TPM2_GetCapability(TPM_CAP_TPM_PROPERTIES) (TCG TPM 2.0 Library Part 3, 30.2; the
// properties in Part 2, 6.13 TPM_PT).

import { getTpmProperties, type TpmProperties } from "./commands.ts";
import {
  TPM_PT_FIRMWARE_VERSION_1,
  TPM_PT_FIRMWARE_VERSION_2,
  TPM_PT_MANUFACTURER,
  TPM_PT_VENDOR_STRING_1,
  TPM_PT_VENDOR_STRING_4,
} from "./constants.ts";
import { execute, type Transmit } from "./wire.ts";

export interface TpmIdentity {
  /** The TCG vendor ID, 4 ASCII characters trimmed: `IBM` (swtpm), `INTC`, `AMD`, `IFX`... */
  readonly manufacturer: string;
  /** The vendor's own string (`SW   TPM` for swtpm), up to 16 characters. */
  readonly vendor: string;
  /** `major.minor.x.y`: the two 32-bit firmware words, each as two 16-bit halves. */
  readonly firmware: string;
}

/** The TPM's manufacturer, vendor string and firmware version. */
export async function tpmProperties(tpm: Transmit): Promise<TpmIdentity> {
  const first = TPM_PT_MANUFACTURER;
  const properties = await execute(
    tpm,
    getTpmProperties(first, TPM_PT_FIRMWARE_VERSION_2 - first + 1),
  );
  return identityOf(properties);
}

/** The identity in the properties read: a property the TPM left out reads as empty. */
export function identityOf(properties: TpmProperties): TpmIdentity {
  const word = (property: number) => properties.get(property) ?? 0;
  const vendor: number[] = [];
  for (let p = TPM_PT_VENDOR_STRING_1; p <= TPM_PT_VENDOR_STRING_4; p++) vendor.push(word(p));
  const v1 = word(TPM_PT_FIRMWARE_VERSION_1);
  const v2 = word(TPM_PT_FIRMWARE_VERSION_2);
  return {
    manufacturer: ascii([word(TPM_PT_MANUFACTURER)]),
    vendor: ascii(vendor),
    firmware: [v1 >>> 16, v1 & 0xffff, v2 >>> 16, v2 & 0xffff].join("."),
  };
}

// Each word holds 4 characters, the first in the high byte; vendors pad with NULs or
// spaces. Anything but printable ASCII is left out: the text goes into a report.
function ascii(words: readonly number[]): string {
  const bytes = Buffer.alloc(words.length * 4);
  for (const [i, w] of words.entries()) bytes.writeUInt32BE(w >>> 0, i * 4);
  return [...bytes]
    .filter((b) => b >= 0x20 && b < 0x7f)
    .map((b) => String.fromCharCode(b))
    .join("")
    .trim();
}
