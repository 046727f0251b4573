// Changes a PCR as the firmware would: a Secure Boot change (Secure Boot off, other keys)
// extends PCR 7 with other events, and a sealed secret's policy no longer holds.
import { createHash } from "node:crypto";
import { TPM_ALG_SHA256 } from "../hardware/tpm/constants.ts";
import { build } from "../hardware/tpm/marshal.ts";
import { EMPTY_PASSWORD, execute, type Transmit } from "../hardware/tpm/wire.ts";

/**
 * TPM2_PCR_Extend (TCG TPM 2.0 Library Part 3, 22.2) of PCR `index`'s SHA-256 bank with
 * the SHA-256 of `bytes`, as an event's measurement. The PCR's handle is its index; PCRs
 * 0 to 15 take an extend from locality 0 with the empty password (PC Client profile).
 */
export async function extendPcr(tpm: Transmit, index: number, bytes: Uint8Array): Promise<void> {
  const digest = createHash("sha256").update(bytes).digest();
  await execute(tpm, {
    name: "TPM2_PCR_Extend",
    handles: [index],
    sessions: [EMPTY_PASSWORD],
    // TPML_DIGEST_VALUES: one TPMT_HA
    parameters: build((w) => w.u32(1).u16(TPM_ALG_SHA256).raw(digest)),
    responseHandles: 0,
    read: () => undefined,
  });
}

const TPM_RH_PLATFORM = 0x4000000c;
const TPM_ALG_SHA1 = 0x0004;

/**
 * Leaves the TPM with its SHA-1 bank alone from its next start, as some firmware ships it:
 * TPM2_PCR_Allocate (Part 3, 22.5) under the platform hierarchy (empty password on swtpm),
 * which takes effect when the TPM starts again.
 */
export async function keepOnlySha1Bank(tpm: Transmit): Promise<void> {
  const all = Buffer.from([0xff, 0xff, 0xff]);
  const none = Buffer.alloc(3);
  await execute(tpm, {
    name: "TPM2_PCR_Allocate",
    handles: [TPM_RH_PLATFORM],
    sessions: [EMPTY_PASSWORD],
    parameters: build((w) =>
      w.u32(2).u16(TPM_ALG_SHA1).u8(3).raw(all).u16(TPM_ALG_SHA256).u8(3).raw(none),
    ),
    responseHandles: 0,
    read: (_, r) => {
      if (r.u8() !== 1) throw new Error("the TPM did not take the allocation");
    },
  });
}
