// Reads a release directory's release.toml (docs/design.md section 4): the version and, for each
// file, its size and sha256. Verifying the files against it is the installer's first step.
import { createHash } from "node:crypto";
import { createReadStream } from "node:fs";
import { readFile, stat } from "node:fs/promises";
import { join } from "node:path";
import TOML from "@iarna/toml";
import { ARCHES, type Arch, archFacts, DEFAULT_ARCH, isArch } from "../common/arch.ts";
import { LikenError } from "../common/errors.ts";
import { cannotRead, readProblem } from "../common/file-errors.ts";
import { MIB } from "../common/size.ts";
import { type BootModules, parseBootModules } from "./boot-modules.ts";
import { type SignerVerdict, signerVerdict } from "./pe-signer.ts";

export interface ReleaseFile {
  readonly sha256: string;
  readonly size: number;
}

export interface ReleaseInfo {
  readonly dir: string;
  readonly version: string;
  readonly kernel: string;
  /** The machines it boots: release.toml's `arch`, amd64 when it names none. */
  readonly arch: Arch;
  readonly files: Readonly<Record<string, ReleaseFile>>;
  /** Size of rootfs.img: what a slot must hold. */
  readonly rootfsSize: number;
  readonly verity: Verity;
  /**
   * A release built with --sign: liken.efi, one unified kernel image (kernel, initramfs and
   * the command line with the verity root hash) signed with the cluster's db key, is what
   * its boot entries start; systemd-boot is signed too.
   */
  readonly signed: boolean;
}

/**
 * rootfs.img is an erofs image of `dataBlocks` 4096-byte blocks followed by its dm-verity
 * hash tree (sha256, no salt, no superblock): the kernel checks every block it reads
 * against `rootHash`, which the boot entry carries.
 */
export interface Verity {
  readonly rootHash: string;
  readonly dataBlocks: number;
}

/** The files of a release for `arch`, besides release.toml (and liken.efi when signed). */
export function releaseFiles(arch: Arch): string[] {
  return ["vmlinuz", "initrd.img", "rootfs.img", archFacts(arch).systemdBoot, "boot-modules.json"];
}

/** Every name a release of any arch may hold: what clearing a folder of a release removes. */
export const ANY_RELEASE_FILES: readonly string[] = [
  ...new Set(ARCHES.flatMap((a) => releaseFiles(a))),
];

/** The signed unified kernel image of a release built with --sign. */
export const RELEASE_UKI = "liken.efi";

/** The release in `dir`, or a ReleaseInvalid refusal saying what is wrong with it. */
export async function requireRelease(dir: string): Promise<ReleaseInfo> {
  const file = join(dir, "release.toml");
  const text = await readFile(file, "utf8").catch(async (error: unknown) => {
    throw await missingRelease(dir, error, (what) => releaseInvalid(dir, what));
  });
  return parseRelease(dir, text);
}

function releaseInvalid(dir: string, what: string): LikenError {
  return new LikenError({
    kind: "refused",
    what: `release ${dir} is not usable: ${what}`,
    hint: "build it again with liken-stick release",
    reason: "ReleaseInvalid",
  });
}

/**
 * release.toml read field by field, each typed, or absent where the file lacks it or holds
 * something else: a damaged file, or one of another release, still tells what it can
 * (inspect shows a slot's version beside a broken [files]). parseRelease requires them all.
 */
export interface ReleaseTomlFields {
  readonly version?: string;
  readonly kernel?: string;
  /** `arch` as written, valid or not: parseRelease judges it. */
  readonly arch?: string;
  /**
   * [files], absent without the table: each file's size and sha256, or null where they are
   * missing or are not a count of bytes and a sha256.
   */
  readonly files?: Readonly<Record<string, ReleaseFile | null>>;
  /** [verity], absent without a valid root_hash and data_blocks. */
  readonly verity?: Verity;
}

/** The fields of release.toml's `text`; throws the TOML parser's error when it is not TOML. */
export function readReleaseToml(text: string): ReleaseTomlFields {
  const data = TOML.parse(text) as Record<string, unknown>;
  const files = data.files;
  const verity = data.verity as { root_hash?: unknown; data_blocks?: unknown } | undefined;
  return {
    ...(typeof data.version === "string" ? { version: data.version } : {}),
    ...(typeof data.kernel === "string" ? { kernel: data.kernel } : {}),
    ...(typeof data.arch === "string" ? { arch: data.arch } : {}),
    ...(typeof files === "object" && files !== null
      ? {
          files: Object.fromEntries(
            Object.entries(files).map(([name, f]) => [name, releaseFile(f)]),
          ),
        }
      : {}),
    ...(typeof verity?.root_hash === "string" &&
    SHA256.test(verity.root_hash) &&
    typeof verity.data_blocks === "number" &&
    Number.isSafeInteger(verity.data_blocks) &&
    verity.data_blocks > 0
      ? { verity: { rootHash: verity.root_hash, dataBlocks: verity.data_blocks } }
      : {}),
  };
}

const SHA256 = /^[0-9a-f]{64}$/;

// A size is a count of bytes: TOML's nan, inf, -1 or 1.5 would reach the layout as a slot
// size (release.fuzz.test.ts).
function releaseFile(value: unknown): ReleaseFile | null {
  const f = value as { sha256?: unknown; size?: unknown } | null | undefined;
  if (
    typeof f?.sha256 !== "string" ||
    !SHA256.test(f.sha256) ||
    typeof f.size !== "number" ||
    !Number.isSafeInteger(f.size) ||
    f.size < 0
  )
    return null;
  return { sha256: f.sha256, size: f.size };
}

/** The release `text` (the release.toml of `dir`) describes, or a ReleaseInvalid refusal. */
export function parseRelease(dir: string, text: string): ReleaseInfo {
  const invalid = (what: string) => releaseInvalid(dir, what);
  let fields: ReleaseTomlFields;
  try {
    fields = readReleaseToml(text);
  } catch (error) {
    throw invalid(`release.toml does not parse (${(error as Error).message.split("\n")[0]})`);
  }
  const { version, kernel, files, verity } = fields;
  if (version === undefined || kernel === undefined || files === undefined)
    throw invalid("release.toml lacks version, kernel or [files]");
  if (!verity) throw invalid("release.toml has no [verity] root_hash and data_blocks");
  const arch = fields.arch ?? DEFAULT_ARCH;
  if (!isArch(arch)) throw invalid(`release.toml's arch is "${arch}", not amd64 or arm64`);
  const checked: Record<string, ReleaseFile> = {};
  const signed = RELEASE_UKI in files;
  for (const name of signed ? [...releaseFiles(arch), RELEASE_UKI] : releaseFiles(arch)) {
    const f = files[name];
    if (!f) throw invalid(`release.toml has no sha256 and size for ${name}`);
    checked[name] = f;
  }
  return {
    dir,
    version,
    kernel,
    arch,
    files: checked,
    rootfsSize: (checked["rootfs.img"] as ReleaseFile).size,
    verity,
    signed,
  };
}

// Why release.toml could not be read: the folder is not there, is not a folder, or lacks it.
async function missingRelease(
  dir: string,
  error: unknown,
  invalid: (what: string) => LikenError,
): Promise<LikenError> {
  const folder = await stat(dir).catch((e: unknown) => e as NodeJS.ErrnoException);
  const notAFolder = (what: string) =>
    new LikenError({
      kind: "refused",
      what,
      hint: "name the folder that liken-stick release --out wrote",
      reason: "ReleaseInvalid",
    });
  if (folder instanceof Error)
    return notAFolder(`the release folder ${cannotRead(dir, folder, "a folder")}`);
  if (!folder.isDirectory()) return notAFolder(`the release ${dir} is a file, not a folder`);
  return (error as NodeJS.ErrnoException).code === "ENOENT"
    ? invalid("it has no release.toml")
    : invalid(cannotRead(join(dir, "release.toml"), error, "a file"));
}

/** Checks every file's size and sha256 against release.toml; a ReleaseInvalid refusal names the first that differs. */
export async function verifyRelease(release: ReleaseInfo): Promise<void> {
  for (const [name, expected] of Object.entries(release.files)) {
    const path = join(release.dir, name);
    // A missing file is refused below as missing, by name.
    const info = await stat(path).catch(() => undefined);
    const fail = (what: string) =>
      new LikenError({
        kind: "refused",
        what: `release ${release.dir} is not usable: ${name} ${what}`,
        hint: "copy the release again, or build it again with liken-stick release",
        reason: "ReleaseInvalid",
      });
    if (!info?.isFile()) throw fail("is missing");
    if (info.size !== expected.size)
      throw fail(`has ${info.size} bytes, release.toml says ${expected.size}`);
    const hash = createHash("sha256");
    for await (const chunk of createReadStream(path, { highWaterMark: 4 * MIB }))
      hash.update(chunk as Buffer);
    const actual = hash.digest("hex");
    if (actual !== expected.sha256)
      throw fail(`has sha256 ${actual}, release.toml says ${expected.sha256}`);
  }
}

/**
 * The release's boot-modules.json (what its initramfs can load at boot), or a ReleaseInvalid
 * refusal. The installer and the hardware report judge each disk's driver chain against it.
 */
export async function requireBootModules(release: ReleaseInfo): Promise<BootModules> {
  const invalid = (what: string) =>
    new LikenError({
      kind: "refused",
      what: `release ${release.dir} is not usable: boot-modules.json ${what}`,
      hint: "build it again with liken-stick release",
      reason: "ReleaseInvalid",
    });
  const text = await readFile(join(release.dir, "boot-modules.json"), "utf8").catch(
    (error: unknown) => {
      throw invalid(readProblem(error, "a file"));
    },
  );
  const modules = parseBootModules(text, release.kernel);
  if (typeof modules === "string") throw invalid(modules);
  return modules;
}

/** Who signed the release's boot image, judged against `db`; unsigned without liken.efi. */
export async function releaseSigner(
  release: ReleaseInfo,
  db: readonly Buffer[],
): Promise<SignerVerdict> {
  if (!release.signed) return { verdict: "unsigned", signer: null };
  return signerVerdict(await readFile(join(release.dir, RELEASE_UKI)), db);
}
