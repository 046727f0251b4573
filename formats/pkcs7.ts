// The PKCS #7 SignedData (RFC 2315) that UEFI Secure Boot checks: the signature inside an
// authenticated variable's .auth file (UEFI spec 2.10, 8.2.2: detached, over the variable's
// name, GUID, attributes, time and value) and the Authenticode signature of a PE image
// (Microsoft's "Windows Authenticode Portable Executable Signature Format"). RSA PKCS #1
// v1.5 with SHA-256 and no signing time, so the same key and bytes always give the same
// signature: signed images stay reproducible (sbsign adds a signing time).
import { createHash, type KeyObject, sign } from "node:crypto";
import {
  children,
  explicit,
  integer,
  nullValue,
  OID,
  octetString,
  oid,
  readElement,
  sequence,
  set,
  tlv,
} from "./der.ts";

export interface Signer {
  readonly key: KeyObject;
  /** The signer's X.509 certificate, DER. */
  readonly certificate: Buffer;
}

const SHA256 = sequence(oid(OID.sha256), nullValue());
const RSA = sequence(oid(OID.rsaEncryption), nullValue());

/**
 * A SignedData without its ContentInfo wrapper, detached, with no attributes: what
 * efitools' sign-efi-sig-list writes into an .auth file and what EDK2 takes.
 */
export function signDetached(data: Buffer, signer: Signer): Buffer {
  const signature = sign("sha256", data, signer.key);
  return signedData(sequence(oid(OID.data)), signerInfo(signer, undefined, signature), signer);
}

/** The Authenticode ContentInfo for a PE image whose Authenticode SHA-256 is `digest`. */
export function signAuthenticode(digest: Buffer, signer: Signer): Buffer {
  // SpcPeImageData: no flags, the "<<<Obsolete>>>" file link every signer writes.
  const obsolete = Buffer.from("<<<Obsolete>>>", "utf16le").swap16();
  const peImageData = sequence(
    tlv(0x03, Buffer.from([0])),
    explicit(0, tlv(0xa2, tlv(0x80, obsolete))),
  );
  const indirect = sequence(
    sequence(oid(OID.spcPeImageData), peImageData),
    sequence(SHA256, octetString(digest)),
  );
  // The message digest covers the content's value, without its SEQUENCE tag and length.
  const contentDigest = createHash("sha256").update(readElement(indirect).content).digest();
  const attributes = [
    sequence(oid(OID.contentType), set(oid(OID.spcIndirectData))),
    sequence(oid(OID.messageDigest), set(octetString(contentDigest))),
    sequence(oid(OID.spcSpOpusInfo), set(sequence())),
  ];
  // The signature covers the attributes as a SET OF; the SignerInfo carries them as [0].
  const signature = sign("sha256", set(...attributes), signer.key);
  const body = signedData(
    sequence(oid(OID.spcIndirectData), explicit(0, indirect)),
    signerInfo(signer, attributes, signature),
    signer,
  );
  return sequence(oid(OID.signedData), explicit(0, body));
}

function signedData(contentInfo: Buffer, info: Buffer, signer: Signer): Buffer {
  return sequence(integer(1), set(SHA256), contentInfo, tlv(0xa0, signer.certificate), set(info));
}

function signerInfo(
  signer: Signer,
  attributes: readonly Buffer[] | undefined,
  signature: Buffer,
): Buffer {
  return sequence(
    integer(1),
    issuerAndSerial(signer.certificate),
    SHA256,
    ...(attributes ? [tlv(0xa0, ...[...attributes].sort(Buffer.compare))] : []),
    RSA,
    octetString(signature),
  );
}

// Certificate ::= SEQUENCE { tbsCertificate SEQUENCE { [0] version, serialNumber, signature,
// issuer, ... } } (RFC 5280 4.1).
function issuerAndSerial(certificate: Buffer): Buffer {
  const [tbs] = children(readElement(certificate));
  if (!tbs) throw new Error("the certificate has no tbsCertificate");
  const fields = children(tbs);
  const skip = fields[0]?.tag === 0xa0 ? 1 : 0;
  const serial = fields[skip];
  const issuer = fields[skip + 2];
  if (serial?.tag !== 0x02 || issuer?.tag !== 0x30)
    throw new Error("the certificate has no issuer");
  return sequence(issuer.encoded, serial.encoded);
}
