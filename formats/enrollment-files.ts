// The signed stick's Secure Boot keys, each variable's new value as an authenticated update
// (.auth: EFI_VARIABLE_AUTHENTICATION_2, then the value; formats/secure-boot-vars.ts) signed
// by the key above it at the build's epoch. db comes in the forms the manifest leaves open:
// the cluster's key alone, and with Microsoft's UEFI CA; the stick enrolls one of them.
import type { KeyVariable } from "./secure-boot-vars.ts";

/** Each file's name in STICK_PAYLOAD.secureBoot (and in the ESP's loader/keys/auto). */
export const ENROLLMENT_FILES = {
  PK: "PK.auth",
  KEK: "KEK.auth",
  /** db with the cluster's key alone. */
  db: "db.auth",
  /** db with the cluster's key and Microsoft's UEFI CA. */
  dbMicrosoft: "db-microsoft.auth",
} as const;

/** The value an .auth update sets: what follows its EFI_VARIABLE_AUTHENTICATION_2 header. */
export function authenticatedValue(auth: Buffer): Buffer {
  // EFI_TIME (16 bytes), then WIN_CERTIFICATE_UEFI_GUID, whose dwLength counts itself.
  const certificateLength = auth.length >= 20 ? auth.readUInt32LE(16) : Number.NaN;
  if (!(certificateLength >= 24 && 16 + certificateLength <= auth.length))
    throw new Error("not an authenticated variable update: its header runs past its end");
  return auth.subarray(16 + certificateLength);
}

/** The order the stick writes them: PK last, since writing it ends setup mode. */
export const ENROLLMENT_ORDER: readonly KeyVariable[] = ["db", "KEK", "PK"];
