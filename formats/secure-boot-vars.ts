// The Secure Boot variables' values (UEFI spec 2.10, 32.4) and the signed updates that set
// them (8.2.2, EFI_VARIABLE_AUTHENTICATION_2): what `liken-stick keys` and the stick's
// enrollment write, and what the hardware report reads back from efivarfs.
import { efiGuidBytes, efiGuidText } from "./efi-guid.ts";
import { type Signer, signDetached } from "./pkcs7.ts";

export const EFI_GLOBAL_VARIABLE = "8BE4DF61-93CA-11D2-AA0D-00E098032B8C";
export const EFI_IMAGE_SECURITY_DATABASE = "D719B2CB-3D3A-4596-A3BC-DAD00E67656F";
const EFI_CERT_X509 = "A5C059A1-94E4-4AA7-87B5-AB155C2BF072";
const EFI_CERT_TYPE_PKCS7 = "4AAFD29D-68DF-49EE-8AA9-347D375665A7";

export type KeyVariable = "PK" | "KEK" | "db";

/**
 * What the SecureBoot and SetupMode variables say. `enabled`: the firmware checks every EFI
 * program against db; `disabled`: it checks nothing; `setup-mode`: no PK is enrolled, so
 * anyone may enroll keys (and nothing is checked): where the liken stick enrolls the
 * cluster's.
 */
export type SecureBootState = "enabled" | "disabled" | "setup-mode";

/** Each key variable's vendor GUID. */
export const VARIABLE_GUIDS: Readonly<Record<KeyVariable, string>> = {
  PK: EFI_GLOBAL_VARIABLE,
  KEK: EFI_GLOBAL_VARIABLE,
  db: EFI_IMAGE_SECURITY_DATABASE,
};

// NON_VOLATILE | BOOTSERVICE_ACCESS | RUNTIME_ACCESS | TIME_BASED_AUTHENTICATED_WRITE_ACCESS
const ATTRIBUTES = 0x27;

/** An X.509 certificate in a signature list, with the GUID of whoever put it there. */
export interface SignatureEntry {
  readonly owner: string;
  /** DER. */
  readonly certificate: Buffer;
}

/**
 * An EFI_SIGNATURE_LIST per certificate (certificates differ in size, and a list holds
 * entries of one size): type, list size, header size 0, entry size, then owner and DER.
 */
export function encodeSignatureLists(entries: readonly SignatureEntry[]): Buffer {
  return Buffer.concat(
    entries.map(({ owner, certificate }) => {
      const head = Buffer.alloc(28);
      efiGuidBytes(EFI_CERT_X509).copy(head, 0);
      head.writeUInt32LE(28 + 16 + certificate.length, 16);
      head.writeUInt32LE(0, 20);
      head.writeUInt32LE(16 + certificate.length, 24);
      return Buffer.concat([head, efiGuidBytes(owner), certificate]);
    }),
  );
}

/** The X.509 entries of a variable's value (other signature types are skipped). */
export function decodeSignatureLists(value: Buffer): SignatureEntry[] {
  const out: SignatureEntry[] = [];
  for (let at = 0; at + 28 <= value.length; ) {
    const listSize = value.readUInt32LE(at + 16);
    const headerSize = value.readUInt32LE(at + 20);
    const entrySize = value.readUInt32LE(at + 24);
    if (listSize < 28 || entrySize < 16 || at + listSize > value.length) break;
    if (efiGuidText(value, at) === EFI_CERT_X509) {
      for (let e = at + 28 + headerSize; e + entrySize <= at + listSize; e += entrySize) {
        out.push({
          owner: efiGuidText(value, e),
          certificate: Buffer.from(value.subarray(e + 16, e + entrySize)),
        });
      }
    }
    at += listSize;
  }
  return out;
}

/** EFI_TIME (8.3) of a moment, to the second, in UTC. */
function efiTime(at: Date): Buffer {
  const t = Buffer.alloc(16);
  t.writeUInt16LE(at.getUTCFullYear(), 0);
  t.writeUInt8(at.getUTCMonth() + 1, 2);
  t.writeUInt8(at.getUTCDate(), 3);
  t.writeUInt8(at.getUTCHours(), 4);
  t.writeUInt8(at.getUTCMinutes(), 5);
  t.writeUInt8(at.getUTCSeconds(), 6);
  return t;
}

/** What an update's signature covers: name (UCS-2, no NUL), vendor GUID, attributes, time, value. */
export function authenticatedPayload(name: KeyVariable, value: Buffer, time: Date): Buffer {
  const attributes = Buffer.alloc(4);
  attributes.writeUInt32LE(ATTRIBUTES);
  return Buffer.concat([
    Buffer.from(name, "utf16le"),
    efiGuidBytes(VARIABLE_GUIDS[name]),
    attributes,
    efiTime(time),
    value,
  ]);
}

/**
 * An .auth file: EFI_VARIABLE_AUTHENTICATION_2 (the time, then a WIN_CERTIFICATE_UEFI_GUID
 * holding the PKCS #7 signature) followed by the new value, as SetVariable() takes it.
 */
export function encodeAuthenticatedUpdate(
  name: KeyVariable,
  value: Buffer,
  time: Date,
  signer: Signer,
): Buffer {
  const signature = signDetached(authenticatedPayload(name, value, time), signer);
  const certificate = Buffer.alloc(24);
  certificate.writeUInt32LE(24 + signature.length, 0);
  certificate.writeUInt16LE(0x0200, 4); // WIN_CERT_REVISION_2_0
  certificate.writeUInt16LE(0x0ef1, 6); // WIN_CERT_TYPE_EFI_GUID
  efiGuidBytes(EFI_CERT_TYPE_PKCS7).copy(certificate, 8);
  return Buffer.concat([efiTime(time), certificate, signature, value]);
}
