// The TPM 2.0 constants this client sends, by their spec names (TCG TPM 2.0 Library Part 2:
// TPM_ST 6.9, TPM_CC 6.5.2, TPM_RC 6.6, TPM_ALG_ID 6.3, TPM_ECC_CURVE 6.4, TPM_SE 6.11, TPM_CAP 6.12,
// TPM_PT 6.13, TPM_RH 7.4, TPMA_OBJECT 8.3, TPMA_SESSION 8.4). Checked against the values
// tpm2-tss's tss2_tpm2_types.h carries.

/** Command and response tags (TPM_ST). */
export const TPM_ST_NO_SESSIONS = 0x8001;
export const TPM_ST_SESSIONS = 0x8002;

/** Command codes (TPM_CC), each with the name its errors carry. */
export const COMMANDS = {
  TPM2_PCR_Allocate: 0x12b,
  TPM2_CreatePrimary: 0x131,
  TPM2_Create: 0x153,
  TPM2_Load: 0x157,
  TPM2_Unseal: 0x15e,
  TPM2_FlushContext: 0x165,
  TPM2_StartAuthSession: 0x176,
  TPM2_GetCapability: 0x17a,
  TPM2_GetRandom: 0x17b,
  TPM2_PCR_Read: 0x17e,
  TPM2_PolicyPCR: 0x17f,
  TPM2_PCR_Extend: 0x182,
  TPM2_PolicyGetDigest: 0x189,
} as const;
export type CommandName = keyof typeof COMMANDS;

/** Algorithms (TPM_ALG_ID) and the one curve (TPM_ECC_CURVE). */
export const TPM_ALG_AES = 0x0006;
export const TPM_ALG_KEYEDHASH = 0x0008;
export const TPM_ALG_SHA256 = 0x000b;
export const TPM_ALG_NULL = 0x0010;
export const TPM_ALG_ECC = 0x0023;
export const TPM_ALG_CFB = 0x0043;
export const TPM_ECC_NIST_P256 = 0x0003;
export const SHA256_SIZE = 32;

/** Session types (TPM_SE). */
export const TPM_SE_POLICY = 0x01;
export const TPM_SE_TRIAL = 0x03;

/** Permanent handles (TPM_RH, TPM_RS). */
export const TPM_RH_OWNER = 0x40000001;
export const TPM_RH_NULL = 0x40000007;
/** The password "session": an authorization by a (here empty) password, in the clear. */
export const TPM_RS_PW = 0x40000009;

/** Object attributes (TPMA_OBJECT bits). */
export const FIXED_TPM = 1 << 1;
export const FIXED_PARENT = 1 << 4;
export const SENSITIVE_DATA_ORIGIN = 1 << 5;
export const USER_WITH_AUTH = 1 << 6;
export const NO_DA = 1 << 10;
export const RESTRICTED = 1 << 16;
export const DECRYPT = 1 << 17;

/** Capabilities (TPM_CAP) and the fixed properties read (TPM_PT, PT_FIXED + n). */
export const TPM_CAP_TPM_PROPERTIES = 0x00000006;
export const TPM_PT_MANUFACTURER = 0x105;
export const TPM_PT_VENDOR_STRING_1 = 0x106;
export const TPM_PT_VENDOR_STRING_4 = 0x109;
export const TPM_PT_FIRMWARE_VERSION_1 = 0x10b;
export const TPM_PT_FIRMWARE_VERSION_2 = 0x10c;

/** A PC Client TPM has 24 PCRs: a selection bitmap of 3 bytes (PCR_SELECT_MIN). */
export const PCR_COUNT = 24;
