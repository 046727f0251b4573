// `liken-stick keys` as an operator runs it: a new folder of keys whose updates are signed
// by the key above each, never a folder that holds anything, and a clear refusal of a key
// folder someone mixed up.
import { createHash, X509Certificate } from "node:crypto";
import { copyFile, mkdir, mkdtemp, readdir, readFile, rm, stat, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { decodeSignatureLists } from "../../formats/secure-boot-vars.ts";
import { cli } from "../../test/cli.ts";
import { makeTestRelease } from "../../test/release-fixture.ts";
import { readVarStore } from "../../testing/efi-varstore.ts";
import { readKeys } from "./keys.ts";
import { MICROSOFT_UEFI_CA_2011 } from "./microsoft-uefi-ca.ts";

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "liken-keys-"));
});
afterAll(() => rm(dir, { recursive: true, force: true }));

describe("liken-stick keys", () => {
  it("makes PK, KEK and db with their certificates, lists and signed updates; keys private", async () => {
    const out = join(dir, "cluster");
    const r = await cli(["keys", "--out", out]);
    expect(r.stderr).toBe("");
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(
      /^Made the Secure Boot keys in .* \(owner [0-9A-F-]{36}\)\. Keep the \.key files secret\.\n$/,
    );
    const files = (await readdir(out)).sort();
    expect(files).toEqual(
      [
        "owner.guid",
        ...["PK", "KEK", "db"].flatMap((n) =>
          [".auth", ".cer", ".crt", ".esl", ".key"].map((e) => n + e),
        ),
      ].sort(),
    );
    expect((await stat(out)).mode & 0o777).toBe(0o700);
    expect((await stat(join(out, "db.key"))).mode & 0o777).toBe(0o600);
    const keys = await readKeys(out);
    const owner = (await readFile(join(out, "owner.guid"), "utf8")).trim();
    expect(keys.owner).toBe(owner);
    expect(new X509Certificate(await readFile(join(out, "db.cer"))).subject).toBe(
      `CN=liken db ${owner.slice(0, 8).toLowerCase()}`,
    );
    // Each .auth ends with the value its .esl holds.
    for (const name of ["PK", "KEK", "db"]) {
      const esl = await readFile(join(out, `${name}.esl`));
      const auth = await readFile(join(out, `${name}.auth`));
      expect(auth.subarray(auth.length - esl.length).equals(esl)).toBe(true);
      expect(decodeSignatureLists(esl)[0]?.owner).toBe(owner);
    }
  });

  it("refuses a folder that holds anything, and leaves it as it was", async () => {
    const out = join(dir, "taken");
    await mkdir(out);
    await writeFile(join(out, "notes.txt"), "mine\n");
    const r = await cli(["keys", "--out", out]);
    expect(r.code).toBe(1);
    expect(r.stderr).toBe(
      `liken-stick keys: ${out} already holds files (name a new folder: keys are never replaced in place)\n`,
    );
    expect(await readdir(out)).toEqual(["notes.txt"]);
  });

  it("refuses to sign with a key folder whose key and certificate do not belong together", async () => {
    const mixed = join(dir, "mixed");
    await mkdir(mixed);
    for (const f of await readdir("test/fixtures/keys/cluster"))
      await copyFile(join("test/fixtures/keys/cluster", f), join(mixed, f));
    await copyFile("test/fixtures/keys/other/db.key", join(mixed, "db.key"));
    await expect(readKeys(mixed)).rejects.toThrow(
      `${mixed} is not a liken key folder: db.key does not belong to db.crt (make one with liken-stick keys --out DIR)`,
    );
  });
});

describe("Microsoft's UEFI CA", () => {
  it("is the certificate Microsoft publishes, and the one in Debian's OVMF_VARS_4M.ms.fd", async () => {
    expect(createHash("sha256").update(MICROSOFT_UEFI_CA_2011).digest("hex")).toBe(
      "48e99b991f57fc52f76149599bff0a58c47154229b9f8d603ac40d3500248507",
    );
    const db = readVarStore(await readFile("/usr/share/OVMF/OVMF_VARS_4M.ms.fd")).find(
      (v) => v.name === "db",
    );
    const certificates = decodeSignatureLists(db?.data ?? Buffer.alloc(0)).map(
      (e) => e.certificate,
    );
    expect(certificates.some((c) => c.equals(MICROSOFT_UEFI_CA_2011))).toBe(true);
  });
});

describe("liken-stick image with [secure_boot]", () => {
  it("refuses to build an unsigned stick, and writes nothing", async () => {
    const release = await makeTestRelease(join(dir, "release"), { version: "1.0.0" });
    const out = join(dir, "stick.img");
    const manifest = "test/fixtures/manifests/good/secure-boot.toml";
    const r = await cli(["image", "--manifest", manifest, "--release", release, "--out", out]);
    expect(r.code).toBe(1);
    expect(r.stderr.trim().split("\n").at(-1)).toBe(
      `liken-stick image: ${manifest} asks for Secure Boot ([secure_boot]) and the image would not be signed (give --sign DIR with the cluster's keys, made by liken-stick keys --out DIR)`,
    );
    await expect(stat(out)).rejects.toThrow("ENOENT");
  });
});

describe("liken-stick image --sign", () => {
  it("refuses a release that is not signed with the same keys, and writes nothing", async () => {
    const release = await makeTestRelease(join(dir, "unsigned-release"), { version: "1.0.0" });
    const out = join(dir, "signed-stick.img");
    const r = await cli([
      ...["image", "--manifest", "test/fixtures/manifests/good/small.toml"],
      ...["--release", release, "--out", out, "--sign", "test/fixtures/keys/cluster"],
    ]);
    expect(r.code).toBe(1);
    expect(r.stderr.trim().split("\n").at(-1)).toBe(
      `liken-stick image: release ${release} is not signed, and a stick signed with test/fixtures/keys/cluster installs onto machines with Secure Boot on (build the release with liken-stick release --sign test/fixtures/keys/cluster)`,
    );
    await expect(stat(out)).rejects.toThrow("ENOENT");
  });
});
