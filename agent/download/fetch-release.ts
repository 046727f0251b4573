// A release fetched by URL into a folder of its own (docs/rollback.md, Name the release to
// run): release.toml first, whole, checked against the spec's release_sha256 before any
// other byte is asked for; then each file release.toml lists, resumed where an earlier
// attempt stopped; then each file's size and sha256 against release.toml. The folder is
// then a release directory like one on a medium: formats/release.ts requireRelease reads
// it. The server is never trusted: the digest vouches for release.toml, which vouches for
// every file.
import { createHash } from "node:crypto";
import { createReadStream } from "node:fs";
import { mkdir, readFile, stat, unlink } from "node:fs/promises";
import { join } from "node:path";
import { runningArch } from "../../common/arch.ts";
import { LikenError } from "../../common/errors.ts";
import { MIB } from "../../common/size.ts";
import {
  ANY_RELEASE_FILES,
  parseRelease,
  RELEASE_UKI,
  type ReleaseFile,
  type ReleaseInfo,
} from "../../formats/release.ts";
import { DownloadError } from "./download-error.ts";
import { fetchFile } from "./fetch-file.ts";

export interface FetchReleaseOptions {
  /** The release's folder on the server, ending in `/` (as agent/spec.ts keeps it). */
  readonly url: string;
  /** The sha256 of the release's release.toml, in lower case. */
  readonly releaseSha256: string;
  /**
   * The download's own folder: it holds one release at a time. Files of another release
   * under the release's names are removed; nothing else in it is touched.
   */
  readonly dir: string;
  /** No byte for this long stops a file's download: 60 s on a machine. */
  readonly stallMs: number;
  /** Ends the download with Stopped: the target changed. */
  readonly signal?: AbortSignal;
  readonly onProgress?: (progress: ReleaseProgress) => void;
}

export interface ReleaseProgress {
  readonly step: "fetching" | "verifying";
  /** The file fetched or verified now, by its name in release.toml. */
  readonly file: string;
  /** Bytes fetched (or verified) over all the release's files. */
  readonly done: number;
  /** The release's files' sizes together, as release.toml gives them. */
  readonly total: number;
}

const RELEASE_TOML = "release.toml";

/** release.toml is a few hundred bytes: more than this is not one. */
const RELEASE_TOML_MAX = MIB;

/**
 * Fetches and verifies the release at `url` into `dir`, and returns `dir`. Throws a
 * DownloadError (`retry` says whether another attempt may go better; DigestMismatch names
 * the file, which is removed), or formats/release.ts's ReleaseInvalid refusal for a
 * release.toml the digest vouches for that is not a release's.
 */
export async function fetchRelease(options: FetchReleaseOptions): Promise<string> {
  await mkdir(options.dir, { recursive: true });
  const text = await vouchedReleaseToml(options);
  const release = parseRelease(options.dir, text);
  refuseOtherArch(release, options.url);
  const files = Object.entries(release.files);
  const total = files.reduce((sum, [, f]) => sum + f.size, 0);
  let before = 0;
  for (const [name, expected] of files) {
    const url = new URL(name, options.url).href;
    await fetchFile({
      url,
      path: join(options.dir, name),
      stallMs: options.stallMs,
      expectedSize: expected.size,
      ...(options.signal ? { signal: options.signal } : {}),
      onProgress: (done) =>
        options.onProgress?.({ step: "fetching", file: name, done: before + done, total }),
    }).catch((error: unknown) => {
      // A server that offers another size holds other bytes than release.toml vouches for.
      if (error instanceof DownloadError && error.failure === "SizeMismatch")
        throw mismatch(name, url, `is not the file release.toml lists: ${error.why}`);
      throw error;
    });
    before += expected.size;
  }
  await verifyFiles(options, release, total);
  return options.dir;
}

// release.toml as the digest vouches for it: the one in the folder when it matches (an
// earlier attempt fetched it, and the files beside it are this release's), else fetched
// whole after the folder is cleared of another release's files.
async function vouchedReleaseToml(options: FetchReleaseOptions): Promise<string> {
  const path = join(options.dir, RELEASE_TOML);
  // No release.toml yet is the first attempt at this folder.
  const kept = await readFile(path).catch(() => null);
  if (kept && sha256(kept) === options.releaseSha256) return kept.toString("utf8");
  for (const name of [RELEASE_TOML, ...ANY_RELEASE_FILES, RELEASE_UKI])
    await unlink(join(options.dir, name)).catch(() => undefined); // absent is as good
  const url = new URL(RELEASE_TOML, options.url).href;
  await fetchFile({
    url,
    path,
    stallMs: options.stallMs,
    maxBytes: RELEASE_TOML_MAX,
    ...(options.signal ? { signal: options.signal } : {}),
  });
  const text = await readFile(path);
  const actual = sha256(text);
  if (actual !== options.releaseSha256) {
    await unlink(path);
    throw new DownloadError({
      failure: "DigestMismatch",
      url,
      file: RELEASE_TOML,
      why: "release.toml does not match the spec's release_sha256",
      what: `${RELEASE_TOML} at ${url} has sha256 ${actual}, the spec's release_sha256 is ${options.releaseSha256}`,
      hint: "set release_sha256 to the sha256 of the release at url (sha256sum release.toml), or publish that release there again",
    });
  }
  return text.toString("utf8");
}

// Every file's size and sha256 against release.toml; a file that differs is removed, so
// the next attempt (after the spec changes) fetches it whole.
async function verifyFiles(
  options: FetchReleaseOptions,
  release: ReleaseInfo,
  total: number,
): Promise<void> {
  let before = 0;
  for (const [name, expected] of Object.entries(release.files)) {
    const path = join(options.dir, name);
    const url = new URL(name, options.url).href;
    if (options.signal?.aborted)
      throw new DownloadError({
        failure: "Stopped",
        url,
        why: "stopped: the release to fetch changed",
        hint: "nothing to do",
      });
    const problem = await fileProblem(path, expected, (done) =>
      options.onProgress?.({ step: "verifying", file: name, done: before + done, total }),
    );
    if (problem) {
      await unlink(path);
      throw mismatch(name, url, problem);
    }
    before += expected.size;
  }
}

async function fileProblem(
  path: string,
  expected: ReleaseFile,
  onProgress: (done: number) => void,
): Promise<string | null> {
  const { size } = await stat(path);
  if (size !== expected.size) return `has ${size} bytes, release.toml says ${expected.size}`;
  const hash = createHash("sha256");
  let done = 0;
  for await (const chunk of createReadStream(path, { highWaterMark: 4 * MIB })) {
    hash.update(chunk as Buffer);
    done += (chunk as Buffer).length;
    onProgress(done);
  }
  const actual = hash.digest("hex");
  return actual === expected.sha256
    ? null
    : `has sha256 ${actual}, release.toml says ${expected.sha256}`;
}

function mismatch(name: string, url: string, problem: string): DownloadError {
  return new DownloadError({
    failure: "DigestMismatch",
    url,
    file: name,
    why: `${name} does not match release.toml`,
    what: `${name} at ${url} ${problem}`,
    hint: "the server holds other bytes than the release's release.toml lists: publish the release there again",
  });
}

function sha256(data: Buffer): string {
  return createHash("sha256").update(data).digest("hex");
}

// A release of another arch would be staged, tried and rejected by a kernel the firmware
// cannot start: refused before a byte of it is fetched.
function refuseOtherArch(release: ReleaseInfo, url: string, machine = runningArch()): void {
  if (machine === undefined || release.arch === machine) return;
  throw new LikenError({
    kind: "refused",
    what: `the release at ${url} is for ${release.arch} machines, and this machine is ${machine}`,
    hint: `publish the ${machine} release there (liken-stick release --arch ${machine}) and point the spec's url at it`,
    reason: "ReleaseInvalid",
  });
}
