// The Secure Boot facts as a firmware with Microsoft's and Debian's keys shows them (the
// variables of Debian's OVMF_VARS_4M.ms.fd laid out as efivarfs), and the signer check
// against a db that holds a certificate authority rather than the signing certificate.
import { createPrivateKey, X509Certificate } from "node:crypto";
import { mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { signerVerdict } from "../formats/pe-signer.ts";
import { EFI_GLOBAL_VARIABLE } from "../formats/secure-boot-vars.ts";
import { readKeys } from "../image-build/secure-boot/keys.ts";
import { signPe } from "../image-build/secure-boot/sign-pe.ts";
import { tinyPe } from "../test/fixtures/tiny-pe.ts";
import { readVarStore } from "../testing/efi-varstore.ts";
import { run } from "../tools/exec.ts";
import { readSecureBoot } from "./secure-boot.ts";

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "liken-secure-boot-"));
});
afterAll(() => rm(dir, { recursive: true, force: true }));

describe("a firmware with Microsoft's and Debian's keys", () => {
  it("reads Secure Boot on, Debian's PK, and Microsoft's CAs in db; a cluster-signed release is not trusted there", async () => {
    const vars = join(dir, "ms/sys/firmware/efi/efivars");
    await mkdir(vars, { recursive: true });
    for (const v of readVarStore(await readFile("/usr/share/OVMF/OVMF_VARS_4M.ms.fd"))) {
      const attributes = Buffer.alloc(4);
      attributes.writeUInt32LE(v.attributes);
      await writeFile(
        join(vars, `${v.name}-${v.guid.toLowerCase()}`),
        Buffer.concat([attributes, v.data]),
      );
    }
    // The firmware computes these two at boot: a PK is enrolled and Secure Boot is enabled.
    const global = EFI_GLOBAL_VARIABLE.toLowerCase();
    await writeFile(join(vars, `SecureBoot-${global}`), Buffer.from([6, 0, 0, 0, 1]));
    await writeFile(join(vars, `SetupMode-${global}`), Buffer.from([6, 0, 0, 0, 0]));

    const facts = await readSecureBoot(join(dir, "ms"));
    expect(facts?.state).toBe("enabled");
    expect(facts?.keys).toEqual({
      pk: ["Debian UEFI Secure Boot (PK/KEK key)"],
      kek: ["Debian UEFI Secure Boot (PK/KEK key)", "Microsoft Corporation KEK CA 2011"],
      db: ["Microsoft Windows Production PCA 2011", "Microsoft Corporation UEFI CA 2011"],
    });
    const keys = await readKeys("test/fixtures/keys/cluster");
    expect(signerVerdict(signPe(tinyPe(), keys.signers.db), facts?.db ?? [])).toEqual({
      verdict: "untrusted",
      signer: "liken db afd13149",
    });
  });
});

describe("signerVerdict", () => {
  it("trusts a signature by a certificate that a certificate in db issued, as firmware does", async () => {
    const ca = join(dir, "ca");
    await run("openssl", [
      ...["req", "-new", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "30"],
      ...["-subj", "/CN=test CA/", "-keyout", `${ca}.key`, "-out", `${ca}.crt`],
    ]);
    const leaf = join(dir, "leaf");
    await run("openssl", [
      ...["req", "-new", "-newkey", "rsa:2048", "-nodes"],
      ...["-subj", "/CN=test signer/", "-keyout", `${leaf}.key`, "-out", `${leaf}.csr`],
    ]);
    await run("openssl", [
      ...["x509", "-req", "-in", `${leaf}.csr`, "-CA", `${ca}.crt`, "-CAkey", `${ca}.key`],
      ...["-CAcreateserial", "-days", "30", "-out", `${leaf}.crt`],
    ]);
    const signed = signPe(tinyPe(), {
      key: createPrivateKey(await readFile(`${leaf}.key`)),
      certificate: new X509Certificate(await readFile(`${leaf}.crt`)).raw,
    });
    const caDer = new X509Certificate(await readFile(`${ca}.crt`)).raw;
    expect(signerVerdict(signed, [caDer])).toEqual({ verdict: "trusted", signer: "test signer" });
    const cluster = (await readKeys("test/fixtures/keys/cluster")).signers.db.certificate;
    expect(signerVerdict(signed, [cluster])).toMatchObject({ verdict: "untrusted" });
    expect(signerVerdict(tinyPe(), [caDer])).toEqual({ verdict: "unsigned", signer: null });
  });
});
