// The cluster's Secure Boot keys (docs/image.md, Secure Boot): PK signs KEK, KEK signs db, db
// signs the stick's and the releases' boot files. `liken-stick keys --out DIR` makes them;
// `image --sign DIR` and `release --sign DIR` read them. Only certificates and signed
// updates travel on a stick; the private keys stay in DIR.
import { createPrivateKey, randomUUID, X509Certificate } from "node:crypto";
import { chmod, mkdir, readdir, readFile, rename, rm, writeFile } from "node:fs/promises";
import { basename, dirname, join } from "node:path";
import { LikenError } from "../../common/errors.ts";
import type { Signer } from "../../formats/pkcs7.ts";
import { type ReleaseInfo, releaseSigner } from "../../formats/release.ts";
import {
  encodeAuthenticatedUpdate,
  encodeSignatureLists,
  type KeyVariable,
  type SignatureEntry,
} from "../../formats/secure-boot-vars.ts";
import { makeSelfSignedKey } from "../../tools/openssl.ts";

export const KEY_VARIABLES: readonly KeyVariable[] = ["PK", "KEK", "db"];

/** Who signs each variable's update: the PK itself, then each key the one above it. */
const UPDATE_SIGNER: Readonly<Record<KeyVariable, KeyVariable>> = {
  PK: "PK",
  KEK: "PK",
  db: "KEK",
};

// Firmware does not check a certificate's dates; 20 years keeps tools that do quiet.
const VALID_DAYS = 7305;

export interface KeySet {
  readonly dir: string;
  /** The GUID every signature list entry of this cluster carries as its owner. */
  readonly owner: string;
  readonly signers: Readonly<Record<KeyVariable, Signer>>;
}

/**
 * Makes a new key set in `out`: for PK, KEK and db a key (`.key`, PEM, mode 0600), its
 * certificate (`.crt` PEM, `.cer` DER for firmware setup screens), its signature list
 * (`.esl`) and its signed update (`.auth`), and `owner.guid`. Refuses a folder that holds
 * anything: keys are never replaced by accident.
 */
export async function createKeys(out: string, now: Date): Promise<KeySet> {
  // A folder that is not there yet gets the keys.
  const existing = await readdir(out).catch(() => undefined);
  if (existing && existing.length > 0)
    throw new LikenError({
      kind: "refused",
      what: `${out} already holds files`,
      hint: "name a new folder: keys are never replaced in place",
    });
  const staging = join(dirname(out), `.${basename(out)}.partial-${process.pid}`);
  await rm(staging, { recursive: true, force: true });
  await mkdir(staging, { recursive: true, mode: 0o700 });
  try {
    const owner = randomUUID().toUpperCase();
    await writeFile(join(staging, "owner.guid"), `${owner}\n`);
    for (const name of KEY_VARIABLES) {
      const key = join(staging, `${name}.key`);
      await makeSelfSignedKey({
        key,
        certificate: join(staging, `${name}.crt`),
        commonName: `liken ${name} ${owner.slice(0, 8).toLowerCase()}`,
        days: VALID_DAYS,
      });
      await chmod(key, 0o600);
    }
    const keys = await readKeys(staging);
    for (const name of KEY_VARIABLES) {
      const certificate = keys.signers[name].certificate;
      await writeFile(join(staging, `${name}.cer`), certificate);
      const update = enrollmentUpdate(keys, name, [{ owner, certificate }], now);
      await writeFile(join(staging, `${name}.esl`), update.value);
      await writeFile(join(staging, `${name}.auth`), update.auth);
    }
    await rename(staging, out);
    return { ...keys, dir: out };
  } finally {
    await rm(staging, { recursive: true, force: true });
  }
}

/** The key set in `dir`, each key checked against its certificate. */
export async function readKeys(dir: string): Promise<KeySet> {
  const missing = (what: string) =>
    new LikenError({
      kind: "refused",
      what: `${dir} is not a liken key folder: ${what}`,
      hint: "make one with liken-stick keys --out DIR",
    });
  const ownerText = await readFile(join(dir, "owner.guid"), "utf8").catch(() => {
    throw missing("owner.guid is missing");
  });
  const owner = ownerText.trim().toUpperCase();
  if (!/^[0-9A-F]{8}-([0-9A-F]{4}-){3}[0-9A-F]{12}$/.test(owner))
    throw missing("owner.guid holds no GUID");
  const signers = {} as Record<KeyVariable, Signer>;
  for (const name of KEY_VARIABLES) {
    const read = (file: string) =>
      readFile(join(dir, file)).catch(() => {
        throw missing(`${file} is missing`);
      });
    const certificate = new X509Certificate(await read(`${name}.crt`));
    const key = createPrivateKey(await read(`${name}.key`));
    if (!certificate.checkPrivateKey(key))
      throw missing(`${name}.key does not belong to ${name}.crt`);
    signers[name] = { key, certificate: certificate.raw };
  }
  return { dir, owner, signers };
}

/** A variable's new value and its .auth update, signed by the key above it. */
export function enrollmentUpdate(
  keys: KeySet,
  name: KeyVariable,
  entries: readonly SignatureEntry[],
  time: Date,
): { readonly value: Buffer; readonly auth: Buffer } {
  const value = encodeSignatureLists(entries);
  return {
    value,
    auth: encodeAuthenticatedUpdate(name, value, time, keys.signers[UPDATE_SIGNER[name]]),
  };
}

/**
 * A signed stick installs its release onto machines that boot with Secure Boot on: the
 * release must be signed with the same db key, or every disk it installs would not boot.
 */
export async function requireReleaseSignedBy(release: ReleaseInfo, keys: KeySet): Promise<void> {
  const refuse = (what: string) =>
    new LikenError({
      kind: "refused",
      what: `release ${release.dir} ${what}, and a stick signed with ${keys.dir} installs onto machines with Secure Boot on`,
      hint: `build the release with liken-stick release --sign ${keys.dir}`,
      reason: "ReleaseInvalid",
    });
  const { verdict, signer } = await releaseSigner(release, [keys.signers.db.certificate]);
  if (verdict === "unsigned") throw refuse("is not signed");
  if (verdict !== "trusted") throw refuse(`is signed by "${signer}", not by ${keys.dir}/db.key`);
}
