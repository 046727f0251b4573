// The one error the TPM client throws: the command, the response code, and the reason a
// caller branches on. Its message is one line: `TPM2_Unseal answered 0x99d (the policy
// failed: PCR 7 is not what it was when the key was sealed)`.
import { LikenError } from "../../common/errors.ts";
import type { CommandName } from "./constants.ts";
import {
  decodeResponseCode,
  describeResponseCode,
  type ResponseCode,
  TPM_RC_INTEGRITY,
  TPM_RC_LOCKOUT,
  TPM_RC_POLICY_FAIL,
} from "./response-code.ts";

/**
 * - `PcrChanged`: the policy failed: the PCRs the secret is sealed to changed (Secure Boot
 *   turned off, other keys enrolled).
 * - `OtherTpm`: this TPM cannot load the sealed object: another TPM sealed it (the disk moved
 *   machines), or this TPM's owner hierarchy was cleared since.
 * - `Lockout`: the TPM is in dictionary-attack lockout.
 * - `Failed`: anything else, the TPM's answer or its absence.
 */
export type TpmFailure = "PcrChanged" | "OtherTpm" | "Lockout" | "Failed";

export class TpmError extends LikenError {
  override readonly reason: TpmFailure;
  readonly command: CommandName;
  /** The response code; undefined when the TPM gave none (no answer, or a malformed one). */
  readonly code: number | undefined;

  constructor(
    command: CommandName,
    code: number | undefined,
    reason: TpmFailure,
    explanation: string,
    cause?: unknown,
  ) {
    const what =
      code === undefined
        ? `${command} got no answer`
        : `${command} answered 0x${code.toString(16)}`;
    super({ kind: "failed", what, hint: explanation, reason, ...(cause ? { cause } : {}) });
    this.reason = reason;
    this.command = command;
    this.code = code;
  }
}

/** The error for a response code other than success. */
export function tpmErrorFor(command: CommandName, code: number): TpmError {
  const rc = decodeResponseCode(code);
  const reason = failureOf(command, rc);
  return new TpmError(command, code, reason, EXPLAIN[reason](rc));
}

// What swtpm 0.7.1 answers (hardware/tpm/seal.int.test.ts): with PCR 7 changed, PolicyPCR
// with an empty digest takes the PCR as it is and succeeds, and Unseal answers 0x99d
// (TPM_RC_POLICY_FAIL on session 1); with a blob of another TPM, Load answers 0x1df
// (TPM_RC_INTEGRITY on parameter 1, inPrivate).
function failureOf(command: CommandName, rc: ResponseCode): TpmFailure {
  if (rc.base === TPM_RC_LOCKOUT) return "Lockout";
  if (rc.base === TPM_RC_POLICY_FAIL) return "PcrChanged";
  // Load checks the sealed object's outer HMAC with a key from its parent's seed (Part 1,
  // "Protected Storage", the integrity of a TPM2B_PRIVATE): another TPM's seed, or this
  // TPM's before a clear, fails it. Any other complaint about the blob's bytes (its
  // parameters) means the same to the caller: this TPM will never load it.
  if (command === "TPM2_Load" && (rc.base === TPM_RC_INTEGRITY || rc.about?.kind === "parameter"))
    return "OtherTpm";
  return "Failed";
}

const EXPLAIN: Readonly<Record<TpmFailure, (rc: ResponseCode) => string>> = {
  PcrChanged: () => "the policy failed: the PCRs are not what they were when the key was sealed",
  OtherTpm: (rc) =>
    `${describeResponseCode(rc)}; this TPM did not seal it: another machine's TPM did, or this one was cleared since`,
  Lockout: () =>
    "the TPM is in dictionary-attack lockout: wait for it to end, or reset it with the lockout authorization",
  Failed: (rc) => describeResponseCode(rc),
};
