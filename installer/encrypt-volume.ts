// [encryption] tpm = true at install (docs/design.md section 3): the keys of one install, and
// a partition made a LUKS2 volume that opens with either of them. The TPM's secret opens
// keyslot 0 and is sealed in token 0; the recovery key opens keyslot 1 and leaves the
// installer once, to the place the manifest names. Only the stick's kernel has dm-crypt:
// a volume is filled through it, so an encrypted install runs on the machine itself.
import { randomBytes } from "node:crypto";
import { open } from "node:fs/promises";
import {
  RECOVERY_KEYSLOT,
  SEALED_PCRS,
  TPM_TOKEN_ID,
  type TpmSealedKey,
  tpmTokenJson,
} from "../formats/luks-token.ts";
import { RECOVERY_KEY_BYTES, recoveryKeyText } from "../formats/recovery-key.ts";
import { writeImage } from "../formats/write-image.ts";
import { sealFreshSecret } from "../hardware/tpm/seal.ts";
import {
  luksAddKey,
  luksClose,
  luksFormat,
  luksImportToken,
  luksOpen,
  mapperPath,
} from "../tools/cryptsetup.ts";
import { attachLoop, detachLoop, type LoopRegion } from "../tools/losetup.ts";

export interface VolumeKeys {
  readonly tpmSecret: Buffer;
  readonly sealed: TpmSealedKey;
  /** The recovery key's text (formats/recovery-key.ts): the passphrase of keyslot 1. */
  readonly recoveryKey: string;
}

/** New keys: 32 random bytes sealed by this machine's TPM to PCR 7, and a recovery key. */
export async function makeVolumeKeys(): Promise<VolumeKeys> {
  const { secret, sealed } = await sealFreshSecret(SEALED_PCRS);
  return {
    tpmSecret: secret,
    sealed,
    recoveryKey: recoveryKeyText(randomBytes(RECOVERY_KEY_BYTES)),
  };
}

export interface Volume extends LoopRegion {
  /** The disk (block device) the partition is on. */
  readonly disk: string;
  readonly label: string;
  /** The LUKS header's UUID: the partition's PARTUUID, so a rerun writes the same. */
  readonly uuid: string;
  /** An image the volume holds once made (the state partition's ext4); none: left empty. */
  readonly content?: string;
}

/** Makes `volume` a LUKS2 volume with `keys`, and writes its content through dm-crypt. */
export async function encryptVolume(volume: Volume, keys: VolumeKeys): Promise<void> {
  const loop = await attachLoop(volume.disk, volume);
  try {
    await luksFormat(loop, {
      key: keys.tpmSecret,
      sectorSize: volume.sectorSize,
      label: volume.label,
      uuid: volume.uuid,
    });
    await luksAddKey(loop, keys.tpmSecret, keys.recoveryKey, RECOVERY_KEYSLOT);
    await luksImportToken(loop, TPM_TOKEN_ID, tpmTokenJson(keys.sealed));
    if (volume.content) await fill(loop, volume.content, keys);
  } finally {
    await detachLoop(loop);
  }
}

async function fill(loop: string, image: string, keys: VolumeKeys): Promise<void> {
  const name = `liken-install-${process.pid}`;
  await luksOpen(loop, name, keys.tpmSecret);
  try {
    const mapped = await open(mapperPath(name), "r+");
    try {
      await writeImage(mapped, image, 0);
      await mapped.sync();
    } finally {
      await mapped.close();
    }
  } finally {
    await luksClose(name);
  }
}
