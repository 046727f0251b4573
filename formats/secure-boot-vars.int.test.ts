// The signature lists and signed updates against efitools' (Debian's efitools 1.9.2):
// cert-to-efi-sig-list and sign-efi-sig-list given the same certificate, owner, key and time.
import { createPrivateKey, X509Certificate } from "node:crypto";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { run } from "../tools/exec.ts";
import {
  encodeAuthenticatedUpdate,
  encodeSignatureLists,
  type KeyVariable,
} from "./secure-boot-vars.ts";

const KEYS = "test/fixtures/keys/cluster";
const OWNER = "AFD13149-C1C3-44DC-8090-0FACD5D0CC7B";
let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "liken-efitools-"));
});
afterAll(() => rm(dir, { recursive: true, force: true }));

const signer = async (name: KeyVariable) => ({
  key: createPrivateKey(await readFile(join(KEYS, `${name}.key`))),
  certificate: new X509Certificate(await readFile(join(KEYS, `${name}.crt`))).raw,
});

describe.each([
  ["PK", "PK"],
  ["KEK", "PK"],
  ["db", "KEK"],
] as const)("%s signed by %s", (name, by) => {
  it("is byte for byte what efitools writes", async () => {
    const esl = join(dir, `${name}.esl`);
    await run("cert-to-efi-sig-list", ["-g", OWNER, join(KEYS, `${name}.crt`), esl]);
    const value = encodeSignatureLists([
      { owner: OWNER, certificate: (await signer(name)).certificate },
    ]);
    expect(value.equals(await readFile(esl))).toBe(true);

    const auth = join(dir, `${name}.auth`);
    await run("sign-efi-sig-list", [
      ...["-t", "2025-06-01 12:34:56"],
      ...["-k", join(KEYS, `${by}.key`), "-c", join(KEYS, `${by}.crt`)],
      name,
      esl,
      auth,
    ]);
    const ours = encodeAuthenticatedUpdate(
      name,
      value,
      new Date("2025-06-01T12:34:56Z"),
      await signer(by),
    );
    expect(ours.toString("hex")).toBe((await readFile(auth)).toString("hex"));
  });
});
