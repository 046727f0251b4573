// The firmware's Secure Boot state and keys, from efivarfs (each variable a file
// NAME-VENDORGUID: 4 bytes of attributes, then the value; UEFI spec 2.10, 3.3 and 32.4).
import { X509Certificate } from "node:crypto";
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { children, readElement } from "../formats/der.ts";
import { findSignature } from "../formats/pe.ts";
import {
  decodeSignatureLists,
  EFI_GLOBAL_VARIABLE,
  EFI_IMAGE_SECURITY_DATABASE,
} from "../formats/secure-boot-vars.ts";

/**
 * `enabled`: the firmware checks every EFI program against db; `disabled`: it checks
 * nothing; `setup-mode`: no PK is enrolled, so anyone may enroll keys (and nothing is
 * checked): where the liken stick enrolls the cluster's.
 */
export type SecureBootState = "enabled" | "disabled" | "setup-mode";

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

const EFIVARS = "sys/firmware/efi/efivars";

/** The facts under `root` (a test's folder, or "/"); undefined without UEFI variables. */
export async function readSecureBoot(root = "/"): Promise<SecureBootFacts | undefined> {
  const value = (name: string, guid: string) =>
    readFile(join(root, EFIVARS, `${name}-${guid.toLowerCase()}`)).then(
      (raw) => raw.subarray(4),
      () => undefined,
    );
  const [secureBoot, setupMode, pk, kek, db] = await Promise.all([
    value("SecureBoot", EFI_GLOBAL_VARIABLE),
    value("SetupMode", EFI_GLOBAL_VARIABLE),
    value("PK", EFI_GLOBAL_VARIABLE),
    value("KEK", EFI_GLOBAL_VARIABLE),
    value("db", EFI_IMAGE_SECURITY_DATABASE),
  ]);
  if (secureBoot === undefined && setupMode === undefined) return undefined;
  const state: SecureBootState =
    setupMode?.[0] === 1 ? "setup-mode" : secureBoot?.[0] === 1 ? "enabled" : "disabled";
  return {
    state,
    keys: { pk: names(pk), kek: names(kek), db: names(db) },
    db: db ? decodeSignatureLists(db).map((e) => e.certificate) : [],
  };
}

function names(value: Buffer | undefined): string[] {
  if (!value) return [];
  return decodeSignatureLists(value).map((e) => commonName(e.certificate));
}

/** A certificate's CN (its whole subject when it has none), or "unreadable certificate". */
export function commonName(der: Buffer): string {
  try {
    const subject = new X509Certificate(der).subject;
    return /^CN=(.*)$/m.exec(subject)?.[1] ?? subject.replaceAll("\n", ", ");
  } catch {
    return "unreadable certificate";
  }
}

/**
 * Who signed an EFI program, and whether a db holding `db` starts it: its signature holds
 * a certificate that is in db or issued by one in db. The firmware also checks every byte
 * against the signature, and dbx; this answers the question an operator has before a
 * reboot ("was this signed with our keys?").
 */
export interface SignerVerdict {
  readonly verdict: "trusted" | "untrusted" | "unsigned";
  /** The common name of the signing certificate; null when unsigned. */
  readonly signer: string | null;
}

export function signerVerdict(program: Buffer, db: readonly Buffer[]): SignerVerdict {
  const certificates = signatureCertificates(program);
  const [first] = certificates;
  if (!first) return { verdict: "unsigned", signer: null };
  const trusted = db.map((d) => new X509Certificate(d));
  const ok = certificates.some((der) => {
    const c = new X509Certificate(der);
    return trusted.some((d) => d.raw.equals(c.raw) || (c.checkIssued(d) && c.verify(d.publicKey)));
  });
  return { verdict: ok ? "trusted" : "untrusted", signer: commonName(first) };
}

// ContentInfo { signedData, [0] SignedData { version, digestAlgorithms, contentInfo,
// [0] IMPLICIT certificates, ... } } (RFC 2315 9.1).
function signatureCertificates(program: Buffer): Buffer[] {
  let signature: Buffer | undefined;
  try {
    signature = findSignature(program);
  } catch {
    return [];
  }
  if (!signature) return [];
  try {
    const [, body] = children(readElement(signature));
    const [signedData] = body ? children(body) : [];
    const set = signedData ? children(signedData).find((e) => e.tag === 0xa0) : undefined;
    return set ? children(set).map((c) => Buffer.from(c.encoded)) : [];
  } catch {
    return [];
  }
}
