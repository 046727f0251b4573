// openssl(1): the Secure Boot keys. Node.js makes RSA keys but not X.509 certificates, and
// firmware takes nothing else in its key databases.
import { run } from "./exec.ts";

/**
 * A new RSA 2048 key (what every UEFI firmware takes; some reject larger ones in PK and
 * KEK) and its self-signed certificate, PEM, valid for `days`.
 */
export async function makeSelfSignedKey(o: {
  readonly key: string;
  readonly certificate: string;
  readonly commonName: string;
  readonly days: number;
}): Promise<void> {
  await run("openssl", [
    "req",
    "-new",
    "-x509",
    "-newkey",
    "rsa:2048",
    "-nodes", // the key file is not encrypted: the build signs without a person to type a passphrase
    "-sha256",
    "-days",
    String(o.days),
    "-subj",
    `/CN=${o.commonName}/`,
    "-keyout",
    o.key,
    "-out",
    o.certificate,
  ]);
}
