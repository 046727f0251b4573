// The state partition and the storage roles as this boot opens them (encrypted-volumes.ts
// for [encryption]; a plain state partition mounts as it is), and what the status says of
// them: `encryption` and the DiskEncrypted condition, only on an encrypted machine.
import { firstLine } from "../common/errors.ts";
import { SEALED_PCRS } from "../formats/luks-token.ts";
import type { EncryptionStatus } from "../formats/machine-status.ts";
import { normalizeRecoveryKey } from "../formats/recovery-key.ts";
import { mapperPath } from "../tools/cryptsetup.ts";
import type { ConditionPart } from "./declared-modules.ts";
import {
  isLuksVolume,
  type NewKey,
  openVolume,
  recoveryKeyOpens,
  STATE_MAPPING,
  sealAgain,
  sealNewKey,
  unsealVolumesKey,
  type VolumeDevice,
  type VolumesKey,
  type VolumesLocked,
} from "./encrypted-volumes.ts";
import { type Partition, say, step } from "./machine.ts";
import { SecretConsoles } from "./recovery-prompt.ts";

export class Volumes {
  #key: VolumesKey | undefined;
  /** After a recovery: the key each volume opened by the recovery key is given. */
  #next: NewKey | undefined;
  #encrypted = false;
  readonly #opened: string[] = [];
  readonly #failed: string[] = [];

  /** The device the state partition's ext4 is on: the partition, or its opened volume. */
  async openState(state: Partition): Promise<string> {
    if (!(await isLuksVolume(state.device))) return state.device;
    this.#encrypted = true;
    this.#key = await unsealVolumesKey(state.device);
    return this.#opened1({ name: "state", device: state.device });
  }

  /**
   * The TPM refused (`locked`): the consoles ask for the recovery key until one opens the
   * state partition, then every volume gets a new key sealed to PCR 7 as it is now.
   */
  async recover(state: Partition, locked: VolumesLocked): Promise<string> {
    step(firstLine(locked));
    step(
      "type the recovery key on this console to open the disks (a new key is then sealed to this machine as it is now), or boot the stick and select wipe and reinstall",
    );
    const volume = { name: "state", device: state.device };
    const consoles = new SecretConsoles();
    try {
      const key = await this.#recoveryKeyFrom(consoles, volume);
      this.#key = { key, by: "recovery-key" };
      this.#opened.push("state");
      this.#next = await sealNewKey();
      await sealAgain(volume, key, this.#next);
      step(
        "the disks are open; a new key is sealed to PCR 7, and the next boot needs no recovery key",
      );
      return mapperPath(STATE_MAPPING);
    } finally {
      consoles.close();
    }
  }

  // Asks until a typed key opens the state partition (keyslot 1).
  async #recoveryKeyFrom(consoles: SecretConsoles, volume: VolumeDevice): Promise<string> {
    for (;;) {
      say("recovery key: ");
      const key = normalizeRecoveryKey(await consoles.readLine());
      say("");
      if (!key)
        step(
          "that is not a recovery key: 64 letters in 8 groups, as the install showed it; type it again",
        );
      else if (await recoveryKeyOpens(volume, key)) return key;
      else step("that recovery key does not open this machine's disks; type it again");
    }
  }

  /** Opens each storage role's volume with the state's key; a role that will not is in the status. */
  async openRoles(roles: readonly VolumeDevice[]): Promise<void> {
    if (!this.#key) return;
    for (const role of roles) {
      // A role that cannot be read is not opened; the release finds it missing.
      if (!(await isLuksVolume(role.device).catch(() => false))) continue;
      await this.#opened1(role).catch((error: Error) => {
        this.#failed.push(role.name);
        step(`the storage role ${role.name} (${role.device}) does not open: ${firstLine(error)}`);
      });
    }
    const by = this.#key.by === "tpm" ? "the key the TPM released" : "the recovery key";
    step(`encrypted disks opened with ${by}: ${this.#opened.join(", ")}`);
  }

  /**
   * `encryption` and DiskEncrypted for the status; nothing on a machine without encryption.
   * (The status's sanitizer takes the word after "key" for a secret: no message has one.)
   */
  status(): { encryption?: EncryptionStatus; encrypted?: ConditionPart } {
    if (!this.#encrypted) return {};
    const by = this.#key?.by;
    const encryption: EncryptionStatus = {
      tpm: true,
      pcrs: SEALED_PCRS,
      opened: [...this.#opened],
      ...(by ? { openedBy: by } : {}),
    };
    const names = this.#opened.join(", ");
    const encrypted: ConditionPart = !by
      ? {
          status: "False",
          reason: "Locked",
          message: "the TPM did not open the encrypted disks, and nobody typed the recovery key",
        }
      : this.#failed.length > 0
        ? {
            status: "False",
            reason: "RoleNotOpened",
            message: `${names} opened; ${this.#failed.join(", ")} did not`,
          }
        : {
            status: "True",
            reason: by === "tpm" ? "OpenedByTpm" : "OpenedByRecoveryKey",
            message:
              by === "tpm"
                ? `${names} opened by the TPM (sealed to PCR 7)`
                : `${names} opened with the recovery key; the TPM seals a new one to PCR 7`,
          };
    return { encryption, encrypted };
  }

  async #opened1(volume: VolumeDevice): Promise<string> {
    const device = await openVolume(volume, this.#key!);
    this.#opened.push(volume.name);
    if (this.#next && this.#key?.by === "recovery-key")
      await sealAgain(volume, this.#key.key as string, this.#next);
    return device;
  }
}

/** The storage roles' partitions identity.json names, wherever they are among `all`. */
export function roleVolumes(
  storage: readonly { readonly role: string; readonly label: string }[],
  all: readonly Partition[],
): VolumeDevice[] {
  return storage.flatMap((s) => {
    const p = all.find((x) => x.label === s.label);
    return p ? [{ name: s.role, device: p.device }] : [];
  });
}
