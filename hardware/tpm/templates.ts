// The two objects' public areas (TPMT_PUBLIC, TCG TPM 2.0 Library Part 2, section 12.2.4):
// the storage primary key every seal and unseal makes again, and the sealed secret.
import {
  DECRYPT,
  FIXED_PARENT,
  FIXED_TPM,
  NO_DA,
  RESTRICTED,
  SENSITIVE_DATA_ORIGIN,
  SHA256_SIZE,
  TPM_ALG_AES,
  TPM_ALG_CFB,
  TPM_ALG_ECC,
  TPM_ALG_KEYEDHASH,
  TPM_ALG_NULL,
  TPM_ALG_SHA256,
  TPM_ECC_NIST_P256,
  USER_WITH_AUTH,
} from "./constants.ts";
import { build } from "./marshal.ts";

/**
 * The TCG's ECC storage root key template (TCG TPM v2.0 Provisioning Guidance 1.0 rev 1.0,
 * section 7.5.1, which takes the EK Credential Profile's template L-2, NIST P-256, with
 * userWithAuth set, no policy and noDA): an ECC NIST P-256 restricted decryption key
 * with an AES-128-CFB inner wrapper, unique x and y 32 zero bytes each. A primary key is
 * derived from the hierarchy's seed and this template alone, so the same TPM makes the
 * same key every time and nothing of it is stored.
 */
export const STORAGE_PRIMARY_TEMPLATE: Buffer = build((w) =>
  w
    .u16(TPM_ALG_ECC)
    .u16(TPM_ALG_SHA256)
    .u32(
      FIXED_TPM |
        FIXED_PARENT |
        SENSITIVE_DATA_ORIGIN |
        USER_WITH_AUTH |
        NO_DA |
        RESTRICTED |
        DECRYPT,
    )
    .sized(Buffer.alloc(0)) // authPolicy
    // TPMS_ECC_PARMS: symmetric (AES, 128, CFB), scheme NULL, curve, kdf NULL
    .u16(TPM_ALG_AES)
    .u16(128)
    .u16(TPM_ALG_CFB)
    .u16(TPM_ALG_NULL)
    .u16(TPM_ECC_NIST_P256)
    .u16(TPM_ALG_NULL)
    // unique: TPMS_ECC_POINT
    .sized(Buffer.alloc(32))
    .sized(Buffer.alloc(32)),
);

/**
 * A sealed data object (a KEYEDHASH with no scheme whose sensitive data the caller gives):
 * fixedTPM and fixedParent, so it never leaves this TPM under this parent; noDA, so a
 * failed unseal never counts toward the TPM's lockout; no userWithAuth, so only its policy
 * (`authPolicy`) releases it, never its empty password.
 */
export function sealedObjectTemplate(authPolicy: Uint8Array): Buffer {
  if (authPolicy.length !== SHA256_SIZE)
    throw new RangeError(`a SHA-256 policy digest is 32 bytes, not ${authPolicy.length}`);
  return build(
    (w) =>
      w
        .u16(TPM_ALG_KEYEDHASH)
        .u16(TPM_ALG_SHA256)
        .u32(FIXED_TPM | FIXED_PARENT | NO_DA)
        .sized(authPolicy)
        .u16(TPM_ALG_NULL) // TPMS_KEYEDHASH_PARMS: scheme NULL
        .sized(Buffer.alloc(0)), // unique: the TPM computes it
  );
}
