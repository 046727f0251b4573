// Who signed an EFI program is asked of a release's liken.efi (from a stick or an update
// medium) against db (from the firmware's variables): any bytes in either give a verdict,
// never an error.
import { createPrivateKey } from "node:crypto";
import { readFileSync } from "node:fs";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { tinyPe } from "../test/fixtures/tiny-pe.ts";
import { fuzzParameters, mutated, readsWithin } from "../test/fuzz.ts";
import { attachSignature, authenticodeDigest, padForSignature } from "./pe.ts";
import { signerVerdict } from "./pe-signer.ts";
import { signAuthenticode } from "./pkcs7.ts";

const KEYS = "test/fixtures/keys/cluster";
const db = readFileSync(`${KEYS}/db.cer`);
const signer = { key: createPrivateKey(readFileSync(`${KEYS}/db.key`)), certificate: db };
const padded = padForSignature(tinyPe());
const signed = attachSignature(padded, signAuthenticode(authenticodeDigest(padded), signer));
// The signature's bytes: where damage reaches the DER and the certificates.
const signatureAt = padded.length;

function expectVerdict(program: Uint8Array, trusted: readonly Buffer[] = [db]): void {
  const verdict = readsWithin((b) => signerVerdict(b, trusted), program);
  if (verdict instanceof Error) throw verdict;
  expect(["trusted", "untrusted", "unsigned"]).toContain(verdict.verdict);
}

describe("the signer of an EFI program, fuzzed", () => {
  it("knows the signed image", () => {
    expect(signerVerdict(signed, [db]).verdict).toBe("trusted");
  });

  it("gives any bytes a verdict", () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 2048 }), (b) => expectVerdict(b)),
      fuzzParameters(),
    );
  });

  it("gives a damaged image a verdict", () => {
    fc.assert(
      fc.property(mutated(signed), (b) => expectVerdict(b)),
      fuzzParameters(100),
    );
  });

  it("gives an image with a damaged signature a verdict", () => {
    const signature = signed.subarray(signatureAt);
    fc.assert(
      fc.property(mutated(signature, 4), (damaged) =>
        expectVerdict(Buffer.concat([signed.subarray(0, signatureAt), damaged])),
      ),
      fuzzParameters(100),
    );
  });

  it("gives a verdict whatever db holds", () => {
    fc.assert(
      fc.property(
        fc.array(
          fc.oneof(
            mutated(db, 4),
            fc.uint8Array({ maxLength: 64 }).map((b) => Buffer.from(b)),
          ),
          { maxLength: 3 },
        ),
        (certificates) => expectVerdict(signed, certificates),
      ),
      fuzzParameters(100),
    );
  });
});
