// [encryption] at boot (docs/design.md section 3): the state partition and the storage
// roles are LUKS2 volumes whose key this machine's TPM releases when PCR 7 is what it was
// at sealing. The agent opens them before anything reads the state: the state at
// /dev/mapper/liken-state, each role at /dev/mapper/liken-ROLE, for the release to use.
// When the TPM refuses, a proven boot holds on the consoles for the recovery key, which
// opens the volumes and seals a new key to PCR 7 as it is now; a trial fails instead.
import { open } from "node:fs/promises";
import { LikenError } from "../common/errors.ts";
import { partitionLabel } from "../common/partition-labels.ts";
import {
  isLuksHeader,
  LUKS_MAGIC,
  parseTpmToken,
  SEALED_PCRS,
  TPM_KEYSLOT,
  TPM_TOKEN_ID,
  tpmTokenJson,
} from "../formats/luks-token.ts";
import { type FreshSecret, sealFreshSecret, unsealSecret } from "../hardware/tpm/seal.ts";
import { TpmError } from "../hardware/tpm/tpm-error.ts";
import { openTpmDevice } from "../hardware/tpm/transport.ts";
import {
  luksAddKey,
  luksExportToken,
  luksImportToken,
  luksKillSlot,
  luksOpen,
  mapperPath,
} from "../tools/cryptsetup.ts";

/** A volume to open: the state partition or a storage role's partition. */
export interface VolumeDevice {
  /** "state", or the role's name. */
  readonly name: string;
  readonly device: string;
}

/** /dev/mapper's name of a volume: its partition's GPT name (liken-state, liken-ROLE). */
export function mappingOf(volume: VolumeDevice): string {
  return partitionLabel(volume.name);
}

export const STATE_MAPPING = partitionLabel("state");

/** Whether `device` begins with a LUKS header (no program: the agent's boot is timed). */
export async function isLuksVolume(device: string): Promise<boolean> {
  const file = await open(device, "r");
  try {
    const head = Buffer.alloc(LUKS_MAGIC.length);
    await file.read(head, 0, head.length, 0);
    return isLuksHeader(head);
  } finally {
    await file.close();
  }
}

/** The key of the volumes, and what released it. */
export interface VolumesKey {
  readonly key: Buffer | string;
  readonly by: "tpm" | "recovery-key";
}

/** The TPM did not release the key: why, in the words the console and the status use. */
export class VolumesLocked extends LikenError {
  constructor(
    readonly why: "PcrChanged" | "OtherTpm" | "NoTpm" | "NoToken" | "Failed",
    detail: string,
  ) {
    super({
      kind: "refused",
      what: `the TPM did not release the key of the encrypted disks: ${WHY[why]} (${detail})`,
      hint: "type the recovery key on the console, or boot the stick and select wipe and reinstall",
      reason: "DiskLocked",
    });
  }
}

const WHY: Readonly<Record<VolumesLocked["why"], string>> = {
  PcrChanged:
    "PCR 7 changed since the key was sealed: Secure Boot was turned off, or other keys were enrolled",
  OtherTpm: "this machine's TPM did not seal it: the disk was moved here, or the TPM was cleared",
  NoTpm: "this machine shows no TPM: it was turned off in the firmware's setup",
  NoToken: "the state partition's LUKS header holds no sealed key",
  Failed: "the TPM failed",
};

/** The key the TPM seals in `device`'s token 0; throws VolumesLocked when it will not. */
export async function unsealVolumesKey(device: string): Promise<VolumesKey> {
  const token = await luksExportToken(device, TPM_TOKEN_ID);
  const sealed = token === undefined ? undefined : parseTpmToken(token);
  if (!sealed) throw new VolumesLocked("NoToken", `token ${TPM_TOKEN_ID} of ${device}`);
  const tpm = await openTpmDevice().catch((error: Error) => {
    throw new VolumesLocked("NoTpm", error.message);
  });
  try {
    return { key: await unsealSecret(tpm, sealed), by: "tpm" };
  } catch (error) {
    if (error instanceof TpmError)
      throw new VolumesLocked(
        error.reason === "PcrChanged" || error.reason === "OtherTpm" ? error.reason : "Failed",
        error.message,
      );
    throw error;
  } finally {
    await tpm.close();
  }
}

/** Opens `volume` at its mapping with `key`; a key it does not take is an error. */
export async function openVolume(volume: VolumeDevice, key: VolumesKey): Promise<string> {
  if (!(await luksOpen(volume.device, mappingOf(volume), key.key)))
    throw new LikenError({
      kind: "failed",
      what: `the key ${key.by === "tpm" ? "the TPM released" : "typed"} does not open ${volume.name} (${volume.device})`,
      hint: "type the recovery key, or boot the stick and select wipe and reinstall",
    });
  return mapperPath(mappingOf(volume));
}

/** Whether `recoveryKey` opens keyslot 1 of `device`: the prompt asks until it does. */
export async function recoveryKeyOpens(
  device: VolumeDevice,
  recoveryKey: string,
): Promise<boolean> {
  return luksOpen(device.device, mappingOf(device), recoveryKey);
}

/** A new key for the volumes, sealed by this machine's TPM to PCR 7 as it is now. */
export type NewKey = FreshSecret;

export function sealNewKey(): Promise<NewKey> {
  return sealFreshSecret(SEALED_PCRS);
}

/**
 * After the recovery key opened `volume`: `next` in its keyslot 0 and token 0, so the next
 * boot needs no one. The recovery key stays. Keyslot 0 goes before the new one comes: a
 * reset in between leaves the recovery key.
 */
export async function sealAgain(
  volume: VolumeDevice,
  recoveryKey: string,
  next: NewKey,
): Promise<void> {
  // An empty keyslot 0 (a reset after the wipe, before the add): nothing to wipe.
  await luksKillSlot(volume.device, TPM_KEYSLOT).catch(() => undefined);
  await luksAddKey(volume.device, recoveryKey, next.secret, TPM_KEYSLOT);
  await luksImportToken(volume.device, TPM_TOKEN_ID, tpmTokenJson(next.sealed));
}
