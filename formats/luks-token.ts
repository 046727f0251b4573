// The LUKS2 token that holds the TPM's sealed key (docs/design.md section 3): JSON in the
// header's token 0, beside the keyslot it opens. The sealed blob is useless without the TPM
// that made it: its private part is encrypted by that TPM's storage key.

/** A LUKS volume's first bytes (the LUKS2 on-disk format, section 2: "LUKS\xba\xbe"). */
export const LUKS_MAGIC = Buffer.from([0x4c, 0x55, 0x4b, 0x53, 0xba, 0xbe]);

export function isLuksHeader(head: Uint8Array): boolean {
  return Buffer.from(head.subarray(0, LUKS_MAGIC.length)).equals(LUKS_MAGIC);
}

export const TPM_TOKEN_TYPE = "liken-tpm2";
export const TPM_TOKEN_ID = 0;
/** Keyslot 0 opens with the TPM's secret, keyslot 1 with the recovery key. */
export const TPM_KEYSLOT = 0;
export const RECOVERY_KEYSLOT = 1;

/** PCR 7: the Secure Boot state and the keys that verified the boot (design.md section 3). */
export const SEALED_PCRS: readonly number[] = [7];

/** A secret sealed by a TPM 2.0 to a policy on PCRs (hardware/tpm/seal.ts makes it). */
export interface TpmSealedKey {
  readonly bank: "sha256";
  readonly pcrs: readonly number[];
  /** TPM2B_PUBLIC and TPM2B_PRIVATE as the TPM returned them, base64. */
  readonly public: string;
  readonly private: string;
}

export function tpmTokenJson(sealed: TpmSealedKey): string {
  return JSON.stringify({
    type: TPM_TOKEN_TYPE,
    keyslots: [String(TPM_KEYSLOT)],
    "tpm2-bank": sealed.bank,
    "tpm2-pcrs": sealed.pcrs,
    "tpm2-public": sealed.public,
    "tpm2-private": sealed.private,
  });
}

/** The sealed key in a token's JSON, or undefined when it is not liken's or is damaged. */
export function parseTpmToken(json: string): TpmSealedKey | undefined {
  let value: unknown;
  try {
    value = JSON.parse(json);
  } catch {
    // Not JSON: not a token liken wrote.
    return undefined;
  }
  if (typeof value !== "object" || value === null) return undefined;
  const t = value as Record<string, unknown>;
  const pcrs = t["tpm2-pcrs"];
  if (
    t.type !== TPM_TOKEN_TYPE ||
    t["tpm2-bank"] !== "sha256" ||
    !Array.isArray(pcrs) ||
    !pcrs.every((p) => Number.isInteger(p) && p >= 0 && p < 24) ||
    typeof t["tpm2-public"] !== "string" ||
    typeof t["tpm2-private"] !== "string"
  )
    return undefined;
  return {
    bank: "sha256",
    pcrs: pcrs as number[],
    public: t["tpm2-public"],
    private: t["tpm2-private"],
  };
}
