// Releases and sticks built once per set of inputs and kept in the cache: the QEMU tests
// and `npm start` share them, and a rebuild with nothing changed costs a hash of the sources.
import { createHash } from "node:crypto";
import { mkdir, mkdtemp, readdir, readFile, rename, rm, stat } from "node:fs/promises";
import { join, relative } from "node:path";
import type { Arch } from "../common/arch.ts";
import type { Progress } from "../common/progress.ts";
import { repoRoot } from "../common/repo-root.ts";
import { buildEpoch } from "../image-build/epoch.ts";
import { defaultCacheDir } from "../image-build/inputs/index.ts";
import { buildNetboot } from "../image-build/netboot/build-netboot.ts";
import { buildRelease } from "../image-build/release/build-release.ts";
import { readKeys } from "../image-build/secure-boot/keys.ts";
import { buildStick } from "../image-build/stick/build-stick.ts";
import { type Manifest, parseManifest, type SecureBootSettings } from "../manifest/index.ts";
import { type ReleaseKnobs, releaseVariant } from "./release-variant.ts";

// Everything whose change changes a build's bytes: the code (the stick bundles the whole
// app, and a test release takes its variant from testing/: every top-level folder but
// these) and the lock files. A list of the folders that
// are in, kept by hand, missed formats/ and hardware/ once, and sticks went stale.
const NOT_SOURCES = new Set(["bench", "bin", "dist", "docs", "examples", "node_modules", "test"]);
const SOURCE_FILES = ["package-lock.json"];

/** A release: its version and the test knobs it is built with (testing/release-variant.ts). */
export type ReleaseRecipe = ReleaseKnobs & {
  readonly version: string;
  /** The machines it boots; amd64 without (the key of amd64's builds stays as before). */
  readonly arch?: Arch;
  /** A key folder (liken-stick keys): a release signed for Secure Boot. */
  readonly signKeys?: string;
};

/** `progress` hears of a build, not of a hit: a hit costs a hash of the sources. */
export async function cachedRelease(recipe: ReleaseRecipe, progress?: Progress): Promise<string> {
  const { signKeys, arch, ...knobs } = recipe;
  const keys = signKeys ? await readKeys(signKeys) : undefined;
  const key = {
    ...knobs,
    ...(arch ? { arch } : {}),
    keys: signKeys ? await keysHash(signKeys) : null,
  };
  return cached("release", key, async (out, workDir) => {
    await buildRelease({
      version: recipe.version,
      ...(arch ? { arch } : {}),
      variant: releaseVariant(recipe.version, knobs),
      ...(keys ? { sign: keys } : {}),
      ...(progress ? { progress } : {}),
      out,
      epoch: buildEpoch(),
      workDir,
    });
  });
}

/** What a key folder's signatures depend on: its certificates and owner (the keys match them). */
async function keysHash(dir: string): Promise<string> {
  const hash = createHash("sha256");
  for (const f of ["owner.guid", "PK.crt", "KEK.crt", "db.crt"])
    hash.update(await readFile(join(dir, f)));
  return hash.digest("hex");
}

export async function cachedStick(
  recipe: {
    manifest: string;
    releaseDir: string;
    append?: readonly string[];
    /** A key folder (liken-stick keys): a signed stick that enrolls them in setup mode. */
    signKeys?: string;
    /** The hybrid ISO instead of the raw image. */
    iso?: boolean;
  },
  progress?: Progress,
): Promise<string> {
  const { signKeys, iso, ...unsigned } = recipe;
  const file = iso ? "stick.iso" : "stick.img";
  const manifestHash = await fileHash(recipe.manifest);
  const releaseHash = await fileHash(join(recipe.releaseDir, "release.toml"));
  const keys = signKeys ? await readKeys(signKeys) : undefined;
  const dir = await cached(
    "stick",
    {
      manifestHash,
      releaseHash,
      append: recipe.append ?? [],
      keys: signKeys ? await keysHash(signKeys) : null,
      file,
    },
    async (out, workDir) => {
      await buildStick({
        ...unsigned,
        ...(keys ? { sign: { keys, ...(await secureBootSettings(recipe.manifest)) } } : {}),
        ...(progress ? { progress } : {}),
        out: join(out, file),
        epoch: buildEpoch(),
        workDir,
      });
    },
  );
  return join(dir, file);
}

async function fileHash(path: string): Promise<string> {
  return createHash("sha256")
    .update(await readFile(path))
    .digest("hex");
}

/** A netboot folder (liken-stick netboot) served at `url`, built once per set of inputs. */
export async function cachedNetboot(recipe: {
  manifest: string;
  releaseDir: string;
  url: string;
  append?: readonly string[];
  /** A key folder (liken-stick keys): one signed unified kernel image. */
  signKeys?: string;
}): Promise<string> {
  const { signKeys, ...unsigned } = recipe;
  return cached(
    "netboot",
    {
      manifestHash: await fileHash(recipe.manifest),
      releaseHash: await fileHash(join(recipe.releaseDir, "release.toml")),
      url: recipe.url,
      append: recipe.append ?? [],
      keys: signKeys ? await keysHash(signKeys) : null,
    },
    async (out, workDir) => {
      await buildNetboot({
        ...unsigned,
        ...(signKeys ? { sign: await readKeys(signKeys) } : {}),
        cluster: await validManifest(recipe.manifest),
        out,
        format: "dnsmasq",
        epoch: buildEpoch(),
        workDir,
      });
    },
  );
}

async function cached(
  kind: string,
  recipe: object,
  build: (out: string, workDir: string) => Promise<void>,
): Promise<string> {
  const key = createHash("sha256")
    .update(JSON.stringify({ kind, recipe, epoch: buildEpoch(), sources: await sourcesHash() }))
    .digest("hex")
    .slice(0, 20);
  const dir = join(defaultCacheDir("builds"), `${kind}-${key}`);
  if (await stat(dir).catch(() => undefined)) return dir;
  await mkdir(defaultCacheDir("builds"), { recursive: true });
  const workDir = await mkdtemp(join(defaultCacheDir("builds"), `.work-${kind}-`));
  try {
    const out = join(workDir, "out");
    await build(out, join(workDir, "scratch"));
    await rename(out, dir).catch(async (error: NodeJS.ErrnoException) => {
      // Another build of the same recipe finished first: theirs is the same bytes.
      if (error.code !== "ENOTEMPTY" && error.code !== "EEXIST") throw error;
    });
  } finally {
    await rm(workDir, { recursive: true, force: true });
  }
  return dir;
}

let sources: Promise<string> | undefined;

function sourcesHash(): Promise<string> {
  sources ??= (async () => {
    const root = repoRoot();
    const hash = createHash("sha256");
    const files: string[] = SOURCE_FILES.map((f) => join(root, f));
    for (const d of await readdir(root, { withFileTypes: true })) {
      if (d.isDirectory() && !d.name.startsWith(".") && !NOT_SOURCES.has(d.name))
        files.push(...(await listFiles(join(root, d.name))));
    }
    for (const f of files.sort()) {
      hash.update(relative(root, f));
      hash.update(await readFile(f).catch(() => Buffer.alloc(0)));
    }
    return hash.digest("hex");
  })();
  return sources;
}

async function listFiles(dir: string): Promise<string[]> {
  const out: string[] = [];
  for (const e of await readdir(dir, { withFileTypes: true }).catch(() => [])) {
    const p = join(dir, e.name);
    if (e.isDirectory()) out.push(...(await listFiles(p)));
    else if (e.isFile() && !e.name.endsWith(".test.ts")) out.push(p);
  }
  return out;
}

/** The manifest's [secure_boot] settings, or the defaults a signed stick takes without them. */
async function secureBootSettings(manifest: string): Promise<SecureBootSettings> {
  return (
    (await validManifest(manifest)).secureBoot ?? { keepMicrosoft: undefined, enroll: "force" }
  );
}

async function validManifest(manifest: string): Promise<Manifest> {
  const result = parseManifest(await readFile(manifest, "utf8"), manifest);
  if (!result.ok)
    throw new Error(
      `${manifest} is not a valid manifest (run liken-stick manifest check ${manifest})`,
    );
  return result.manifest;
}
