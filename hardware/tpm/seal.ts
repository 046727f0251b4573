// A secret sealed by the machine's TPM 2.0 to the values of PCRs of its SHA-256 bank: the
// LUKS2 passphrase of the state partition and the storage roles (issue 43). Only this TPM,
// with those PCRs as they were at sealing, gives it back.
//
// Why PCR 7 only (the callers choose it): it holds the Secure Boot state and keys (PK, KEK,
// db, dbx, and the db entry that verified each image the firmware ran; TCG PC Client
// Platform Firmware Profile, section 3.3.4.8). It changes when Secure Boot is turned off,
// other keys are enrolled, or an image verified by another db entry boots (a distribution's
// shim under Microsoft's CA), and not when liken installs a new release: the release's
// images go into PCR 4 and others, which an update changes, so sealing to them would need
// a sealing again at each update. What it does not stop: any image the cluster's own key
// signed (an older release too) boots to the same PCR 7; and the secret crosses the TPM's
// bus in the clear when it is unsealed (the session encrypts no parameters), so a probe on
// that bus reads it.
//
// What it sends (TCG TPM 2.0 Library Part 3), over /dev/tpmrm0 (transport.ts):
// - seal: TPM2_CreatePrimary (24.1) under TPM_RH_OWNER with the empty password and the
//   TCG's ECC P-256 storage key template (templates.ts): the same TPM makes the same key
//   every time, so nothing of it is stored; TPM2_PCR_Read (22.4) to see that the SHA-256
//   bank holds the PCRs (a policy over PCRs the TPM does not keep would seal to nothing);
//   a trial session (11.1) with TPM2_PolicyPCR (23.7) on the current values and
//   TPM2_PolicyGetDigest (23.19) for the policy digest; TPM2_Create (12.1) of a sealed
//   data object with that policy and no userWithAuth; TPM2_FlushContext (28.4) of each.
// - unseal: TPM2_CreatePrimary again, TPM2_Load (12.2), a policy session with
//   TPM2_PolicyPCR, TPM2_Unseal (12.7) with that session.
// What is stored is the object's TPM2B_PUBLIC and TPM2B_PRIVATE as the TPM returned them
// (the private part is encrypted and HMACed by the storage key, which never leaves this
// TPM). liken carries no tpm2-tools: its closure brings libcurl and GnuTLS to the stick
// and the release's root for these few commands.
import { randomBytes } from "node:crypto";
import { LikenError } from "../../common/errors.ts";
import type { TpmSealedKey } from "../../formats/luks-token.ts";
import {
  type CreatedObject,
  create,
  createPrimary,
  flushContext,
  load,
  pcrRead,
  policyGetDigest,
  policyPcr,
  startAuthSession,
  unseal,
} from "./commands.ts";
import { PCR_COUNT, TPM_RH_OWNER, TPM_SE_POLICY, TPM_SE_TRIAL } from "./constants.ts";
import { TPM_RC_PCR_CHANGED } from "./response-code.ts";
import { STORAGE_PRIMARY_TEMPLATE, sealedObjectTemplate } from "./templates.ts";
import { TpmError } from "./tpm-error.ts";
import { openTpmDevice, type TpmTransport } from "./transport.ts";
import { execute, policySession, type Transmit } from "./wire.ts";

/** A sealed secret as the LUKS2 token holds it (formats/luks-token.ts): JSON-safe. */
export type SealedSecret = TpmSealedKey;

/** A sealed data object's sensitive data holds at most MAX_SYM_DATA bytes (Part 2). */
const MAX_SECRET = 128;
/** TPM_RC_PCR_CHANGED: a PCR was extended between PolicyPCR and Unseal; the same again. */
const UNSEAL_TRIES = 3;

/**
 * Seals `secret` (1 to 128 bytes) to the current SHA-256 values of `pcrs`. A TPM without
 * those values (its SHA-256 bank off) is a refusal, never a secret sealed to nothing.
 */
export async function sealSecret(
  tpm: TpmTransport,
  secret: Buffer,
  pcrs: readonly number[],
): Promise<SealedSecret> {
  if (secret.length < 1 || secret.length > MAX_SECRET)
    throw new RangeError(`a sealed secret is 1 to ${MAX_SECRET} bytes, not ${secret.length}`);
  const selection = checkedPcrs(pcrs);
  return withHandles(tpm, async (track) => {
    const primary = track(
      (await execute(tpm, createPrimary(TPM_RH_OWNER, STORAGE_PRIMARY_TEMPLATE))).handle,
    );
    await requireBank(tpm, selection);
    const trial = track(await execute(tpm, startAuthSession(TPM_SE_TRIAL, randomBytes(32))));
    await execute(tpm, policyPcr(trial, selection));
    const digest = await execute(tpm, policyGetDigest(trial));
    const object = await execute(tpm, create(primary, sealedObjectTemplate(digest), secret));
    return {
      bank: "sha256",
      pcrs: selection,
      public: object.public.toString("base64"),
      private: object.private.toString("base64"),
    };
  });
}

/**
 * The secret back, when this TPM sealed it and its PCRs hold what they held then. A
 * TpmError says why not: `PcrChanged`, `OtherTpm`, `Lockout` or `Failed`.
 */
export async function unsealSecret(tpm: TpmTransport, sealed: SealedSecret): Promise<Buffer> {
  if (sealed.bank !== "sha256")
    throw new RangeError(`a sealed secret's bank is sha256, not ${String(sealed.bank)}`);
  const selection = checkedPcrs(sealed.pcrs);
  const object: CreatedObject = {
    public: Buffer.from(sealed.public, "base64"),
    private: Buffer.from(sealed.private, "base64"),
  };
  return withHandles(tpm, async (track) => {
    const primary = track(
      (await execute(tpm, createPrimary(TPM_RH_OWNER, STORAGE_PRIMARY_TEMPLATE))).handle,
    );
    const item = track((await execute(tpm, load(primary, object))).handle);
    for (let attempt = 1; ; attempt++) {
      // The session ends with the Unseal that uses it (continueSession clear), or with
      // the flush below when a command before fails.
      const session = track(await execute(tpm, startAuthSession(TPM_SE_POLICY, randomBytes(32))));
      try {
        await execute(tpm, policyPcr(session, selection));
        return await execute(tpm, unseal(item, policySession(session)));
      } catch (error) {
        if (error instanceof TpmError && error.reason === "PcrChanged")
          throw pcrsChanged(error, selection);
        if (
          !(error instanceof TpmError && error.code === TPM_RC_PCR_CHANGED) ||
          attempt === UNSEAL_TRIES
        )
          throw error;
      }
    }
  });
}

// Each transient handle a command made is flushed when the work ends, whatever ended it;
// a handle the TPM already flushed (a session Unseal used) answers an error, ignored.
async function withHandles<T>(
  tpm: Transmit,
  work: (track: (handle: number) => number) => Promise<T>,
): Promise<T> {
  const handles: number[] = [];
  const track = (handle: number): number => {
    handles.push(handle);
    return handle;
  };
  try {
    return await work(track);
  } finally {
    for (const handle of handles.reverse()) {
      // A flush that fails must not hide the command's own error; the resource manager
      // flushes what is left when the device closes.
      await execute(tpm, flushContext(handle)).catch(() => undefined);
    }
  }
}

function checkedPcrs(pcrs: readonly number[]): number[] {
  const sorted = [...new Set(pcrs)].sort((a, b) => a - b);
  if (
    sorted.length === 0 ||
    sorted.some((pcr) => !Number.isInteger(pcr) || pcr < 0 || pcr >= PCR_COUNT)
  )
    throw new RangeError(
      `PCRs to seal to are 0 to ${PCR_COUNT - 1}, at least one: not [${pcrs.join(", ")}]`,
    );
  return sorted;
}

async function requireBank(tpm: Transmit, pcrs: readonly number[]): Promise<void> {
  const values = await execute(tpm, pcrRead(pcrs));
  const missing = pcrs.filter((pcr) => !values.has(pcr));
  if (missing.length > 0)
    throw new LikenError({
      kind: "refused",
      what: `the TPM keeps no SHA-256 value of PCR ${missing.join(", ")}`,
      hint: "turn the TPM's SHA-256 PCR bank on in the firmware's setup",
      reason: "TpmNoSha256Bank",
    });
}

function pcrsChanged(error: TpmError, pcrs: readonly number[]): TpmError {
  const which =
    pcrs.length === 1
      ? `PCR ${pcrs[0]} is not what it was`
      : `PCRs ${pcrs.join(", ")} are not what they were`;
  return new TpmError(
    error.command,
    error.code,
    "PcrChanged",
    `the policy failed: ${which} when the key was sealed`,
    error,
  );
}

/** A new random secret and its sealed object, from this machine's TPM (/dev/tpmrm0). */
export interface FreshSecret {
  readonly secret: Buffer;
  readonly sealed: SealedSecret;
}

/** 32 random bytes sealed by this machine's TPM to `pcrs`: a LUKS2 keyslot's key. */
export async function sealFreshSecret(pcrs: readonly number[]): Promise<FreshSecret> {
  const secret = randomBytes(32);
  const tpm = await openTpmDevice();
  try {
    return { secret, sealed: await sealSecret(tpm, secret, pcrs) };
  } finally {
    await tpm.close();
  }
}
