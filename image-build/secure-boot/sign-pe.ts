// Signs an EFI program with the cluster's db key: what the firmware checks before it starts
// systemd-boot or a unified kernel image with Secure Boot on.
import { attachSignature, authenticodeDigest, padForSignature } from "../../formats/pe.ts";
import { type Signer, signAuthenticode } from "../../formats/pkcs7.ts";

export function signPe(pe: Buffer, signer: Signer): Buffer {
  const padded = padForSignature(pe);
  return attachSignature(padded, signAuthenticode(authenticodeDigest(padded), signer));
}
