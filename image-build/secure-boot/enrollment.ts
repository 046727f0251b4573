// What the signed stick's systemd-boot enrolls in a machine in setup mode: the cluster's PK
// and KEK, and db with the cluster's key and, unless the manifest says otherwise,
// Microsoft's UEFI CA (loader/keys/auto/{PK,KEK,db}.auth).
import type { KeyVariable } from "../../formats/secure-boot-vars.ts";
import type { SecureBootSettings } from "../../manifest/index.ts";
import { enrollmentUpdate, KEY_VARIABLES, type KeySet } from "./keys.ts";
import { MICROSOFT_OWNER, MICROSOFT_UEFI_CA_2011 } from "./microsoft-uefi-ca.ts";

/** The keys, with the manifest's [secure_boot] settings (keep Microsoft's CA, how to enroll). */
export interface StickSigning extends SecureBootSettings {
  readonly keys: KeySet;
}

/** Each key variable's .auth file, signed at `time` (the build's epoch: reproducible). */
export function enrollmentFiles(signing: StickSigning, time: Date): [string, Buffer][] {
  const { keys } = signing;
  const own = (name: KeyVariable) => ({
    owner: keys.owner,
    certificate: keys.signers[name].certificate,
  });
  return KEY_VARIABLES.map((name) => {
    const entries = [own(name)];
    if (name === "db" && signing.keepMicrosoft)
      entries.push({ owner: MICROSOFT_OWNER, certificate: MICROSOFT_UEFI_CA_2011 });
    return [`${name}.auth`, enrollmentUpdate(keys, name, entries, time).auth];
  });
}
