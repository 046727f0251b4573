// What a signed stick enrolls in a machine in setup mode: the cluster's PK and KEK, and db
// with the cluster's key and, where the manifest or the machine asks for it, Microsoft's
// UEFI CA. With enroll = "force" the stick's Linux enrolls them from its payload
// (STICK_PAYLOAD.secureBoot), after it read the option ROMs the firmware ran from the TPM
// event log; with "manual", systemd-boot from loader/keys/auto, when a person picks its entry.
import { ENROLLMENT_FILES } from "../../formats/enrollment-files.ts";
import type { KeyVariable } from "../../formats/secure-boot-vars.ts";
import type { SecureBootSettings } from "../../manifest/index.ts";
import { enrollmentUpdate, type KeySet } from "./keys.ts";
import { MICROSOFT_OWNER, MICROSOFT_UEFI_CA_2011 } from "./microsoft-uefi-ca.ts";

/** The keys, with the manifest's [secure_boot] settings (keep Microsoft's CA, how to enroll). */
export interface StickSigning extends SecureBootSettings {
  readonly keys: KeySet;
}

/**
 * The payload's .auth files for enroll = "force", signed at `time` (the build's epoch:
 * reproducible): PK, KEK, and db in each form keep_microsoft leaves open (both when it is
 * not set: the machine decides).
 */
export function payloadEnrollmentFiles(signing: StickSigning, time: Date): [string, Buffer][] {
  const files: [string, Buffer][] = [
    [ENROLLMENT_FILES.PK, update(signing, "PK", false, time)],
    [ENROLLMENT_FILES.KEK, update(signing, "KEK", false, time)],
  ];
  if (signing.keepMicrosoft !== true)
    files.push([ENROLLMENT_FILES.db, update(signing, "db", false, time)]);
  if (signing.keepMicrosoft !== false)
    files.push([ENROLLMENT_FILES.dbMicrosoft, update(signing, "db", true, time)]);
  return files;
}

/**
 * systemd-boot's loader/keys/auto for enroll = "manual": it reads no event log, so db keeps
 * Microsoft's CA unless the manifest says keep_microsoft = false.
 */
export function espEnrollmentFiles(signing: StickSigning, time: Date): [string, Buffer][] {
  const microsoft = signing.keepMicrosoft !== false;
  return [
    [ENROLLMENT_FILES.PK, update(signing, "PK", false, time)],
    [ENROLLMENT_FILES.KEK, update(signing, "KEK", false, time)],
    [ENROLLMENT_FILES.db, update(signing, "db", microsoft, time)],
  ];
}

function update(signing: StickSigning, name: KeyVariable, microsoft: boolean, time: Date): Buffer {
  const { keys } = signing;
  const entries = [{ owner: keys.owner, certificate: keys.signers[name].certificate }];
  if (microsoft) entries.push({ owner: MICROSOFT_OWNER, certificate: MICROSOFT_UEFI_CA_2011 });
  return enrollmentUpdate(keys, name, entries, time).auth;
}
