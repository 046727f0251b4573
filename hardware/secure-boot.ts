// The firmware's Secure Boot state and keys, from efivarfs (each variable a file
// NAME-VENDORGUID: 4 bytes of attributes, then the value; UEFI spec 2.10, 3.3 and 32.4).
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { orNull } from "../common/or-null.ts";
import { commonName } from "../formats/pe-signer.ts";
import {
  decodeSignatureLists,
  EFI_GLOBAL_VARIABLE,
  EFI_IMAGE_SECURITY_DATABASE,
  type SecureBootState,
} from "../formats/secure-boot-vars.ts";
import { EFIVARS } from "./efi-vars.ts";

export type { SecureBootState };

export interface SecureBootFacts {
  readonly state: SecureBootState;
  /** The common names of the certificates in PK, KEK and db. */
  readonly keys: {
    readonly pk: readonly string[];
    readonly kek: readonly string[];
    readonly db: readonly string[];
  };
  /** db's X.509 certificates (DER): what an EFI program's signature must lead to. */
  readonly db: readonly Buffer[];
}

/** The facts under `root` (a test's folder, or "/"); undefined without UEFI variables. */
export async function readSecureBoot(root = "/"): Promise<SecureBootFacts | undefined> {
  // efivarfs answers from memory: read at once, not through the thread pool.
  const value = (name: string, guid: string) =>
    orNull(() => readFileSync(join(root, EFIVARS, `${name}-${guid.toLowerCase()}`)))?.subarray(4);
  const secureBoot = value("SecureBoot", EFI_GLOBAL_VARIABLE);
  const setupMode = value("SetupMode", EFI_GLOBAL_VARIABLE);
  const pk = value("PK", EFI_GLOBAL_VARIABLE);
  const kek = value("KEK", EFI_GLOBAL_VARIABLE);
  const db = value("db", EFI_IMAGE_SECURITY_DATABASE);
  if (secureBoot === undefined && setupMode === undefined) return undefined;
  const state: SecureBootState =
    setupMode?.[0] === 1 ? "setup-mode" : secureBoot?.[0] === 1 ? "enabled" : "disabled";
  const certificates = (value: Buffer | undefined) =>
    value ? decodeSignatureLists(value).map((e) => e.certificate) : [];
  const dbCertificates = certificates(db);
  return {
    state,
    keys: {
      pk: certificates(pk).map(commonName),
      kek: certificates(kek).map(commonName),
      db: dbCertificates.map(commonName),
    },
    db: dbCertificates,
  };
}
