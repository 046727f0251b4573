// Who signed an EFI program, and whether a firmware whose db holds given certificates
// starts it (UEFI 2.10, 32.5.3.3: a signature is accepted when a certificate in it is in
// db, or is issued by one that is). Used before staging, in the hardware report, and by
// `image --sign` to check the release it puts on the stick.
import { X509Certificate } from "node:crypto";
import { children, readElement } from "./der.ts";
import { findSignature } from "./pe.ts";

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
  // db comes from the firmware's variables and the signature from the program: a
  // certificate in either that does not parse trusts nothing (it threw: pe-signer.fuzz.test.ts).
  const trusted = db.map(certificateOf).filter((d) => d !== undefined);
  const ok = certificates.some((der) => {
    const c = certificateOf(der);
    return (
      c !== undefined &&
      trusted.some((d) => d.raw.equals(c.raw) || (c.checkIssued(d) && c.verify(d.publicKey)))
    );
  });
  return { verdict: ok ? "trusted" : "untrusted", signer: commonName(first) };
}

function certificateOf(der: Buffer): X509Certificate | undefined {
  try {
    return new X509Certificate(der);
  } catch {
    // Bytes that are no certificate name no signer.
    return undefined;
  }
}

// ContentInfo { signedData, [0] SignedData { version, digestAlgorithms, contentInfo,
// [0] IMPLICIT certificates, ... } } (RFC 2315 9.1).
function signatureCertificates(program: Buffer): Buffer[] {
  let signature: Buffer | undefined;
  try {
    signature = findSignature(program);
  } catch {
    // An image whose PE headers cannot be read carries no signature this can find.
    return [];
  }
  if (!signature) return [];
  try {
    const [, body] = children(readElement(signature));
    const [signedData] = body ? children(body) : [];
    const set = signedData ? children(signedData).find((e) => e.tag === 0xa0) : undefined;
    return set ? children(set).map((c) => Buffer.from(c.encoded)) : [];
  } catch {
    // A signature that is not the PKCS#7 SignedData shape names no certificate.
    return [];
  }
}

/** A certificate's CN (its whole subject when it has none), or "unreadable certificate". */
export function commonName(der: Buffer): string {
  try {
    const subject = new X509Certificate(der).subject;
    return /^CN=(.*)$/m.exec(subject)?.[1] ?? subject.replaceAll("\n", ", ");
  } catch {
    // The name is for a person reading the report; the verdict does not depend on it.
    return "unreadable certificate";
  }
}
