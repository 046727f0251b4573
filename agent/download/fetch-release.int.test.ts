// A release fetched by URL from a real HTTP server on 127.0.0.1: whole and verified, a
// server that stalls after its headers, a connection cut half-way and resumed with a
// range, a server that ignores ranges, a file that differs from release.toml, and a
// release.toml that is not the one the spec's digest names. Only loopback traffic.
import { mkdtemp, readdir, readFile, rm, stat, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { requireRelease, verifyRelease } from "../../formats/release.ts";
import {
  type ReleaseServer,
  startReleaseServer,
  writeFakeRelease,
} from "../../test/release-server.ts";
import { DownloadError } from "./download-error.ts";
import { fetchRelease, type ReleaseProgress } from "./fetch-release.ts";

let work: string;
let served: string;
let into: string;
let digest: string;
let server: ReleaseServer;

beforeEach(async () => {
  work = await mkdtemp(join(tmpdir(), "liken-fetch-release-"));
  served = join(work, "served");
  into = join(work, "download");
  digest = await writeFakeRelease(served);
  server = await startReleaseServer(served);
});

afterEach(async () => {
  await server.close();
  await rm(work, { recursive: true, force: true });
});

function fetch(options: { stallMs?: number; sha256?: string } = {}) {
  const progress: ReleaseProgress[] = [];
  const done = fetchRelease({
    url: server.url,
    releaseSha256: options.sha256 ?? digest,
    dir: into,
    stallMs: options.stallMs ?? 10_000,
    onProgress: (p) => progress.push(p),
  });
  return { done, progress };
}

async function failure(promise: Promise<unknown>): Promise<DownloadError> {
  const error = await promise.then(
    () => null,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(DownloadError);
  return error as DownloadError;
}

const requested = () => server.requests.map((r) => r.path.split("/").pop());

describe("fetchRelease", () => {
  it("fetches release.toml, then every file, and the folder reads as a verified release", async () => {
    const { done, progress } = fetch();
    expect(await done).toBe(into);
    const release = await requireRelease(into);
    expect(release.version).toBe("2.0.0");
    await verifyRelease(release);
    expect(requested()).toEqual(["release.toml", ...Object.keys(release.files)]);
    expect(server.requests.every((r) => r.range === undefined && r.status === 200)).toBe(true);
    const total = Object.values(release.files).reduce((s, f) => s + f.size, 0);
    const fetched = progress.filter((p) => p.step === "fetching");
    const verified = progress.filter((p) => p.step === "verifying");
    expect(fetched.at(-1)).toEqual({
      step: "fetching",
      file: "boot-modules.json",
      done: total,
      total,
    });
    expect(verified.at(-1)).toEqual({
      step: "verifying",
      file: "boot-modules.json",
      done: total,
      total,
    });
    // Progress only grows, and every fetch comes before the first check.
    expect(fetched.map((p) => p.done)).toEqual(fetched.map((p) => p.done).sort((a, b) => a - b));
    expect(progress.findIndex((p) => p.step === "verifying")).toBe(fetched.length);
  });

  it("stops a file whose server sends headers and then no bytes, after the stall time", async () => {
    server.misbehave("rootfs.img", "stall");
    const started = performance.now();
    const error = await failure(fetch({ stallMs: 1000 }).done);
    const seconds = (performance.now() - started) / 1000;
    expect(error.failure).toBe("Stalled");
    expect(error.why).toBe("no bytes for 1 s");
    expect(error.retry).toBe(true);
    expect(error.message).toBe(
      `download of ${server.url}rootfs.img failed: no bytes for 1 s (a slow or broken link, or a server that stopped sending; the machine retries on its own)`,
    );
    expect(seconds).toBeGreaterThanOrEqual(1);
    expect(seconds).toBeLessThan(5);
  });

  it("stops a server that answers nothing at all, after the stall time", async () => {
    server.misbehave("release.toml", "silent");
    const error = await failure(fetch({ stallMs: 1000 }).done);
    expect(error).toMatchObject({ failure: "Stalled", why: "no bytes for 1 s" });
  });

  it("resumes a file with a range after the connection was cut half-way", async () => {
    server.misbehave("rootfs.img", "dropHalf", 1);
    const error = await failure(fetch().done);
    expect(error).toMatchObject({ failure: "ConnectionClosed", retry: true });
    expect(error.why).toMatch(/^the connection closed after \d+ of 4194304 bytes$/);
    expect(error.message).toContain(`${server.url}rootfs.img`);
    const kept = (await stat(join(into, "rootfs.img"))).size;
    expect(kept).toBeGreaterThan(0);
    expect(kept).toBeLessThan((await stat(join(served, "rootfs.img"))).size);

    server.requests.length = 0;
    const { done, progress } = fetch();
    expect(await done).toBe(into);
    await verifyRelease(await requireRelease(into));
    // release.toml and the files before rootfs.img were kept: only the rest is asked for.
    expect(requested()).toEqual(["rootfs.img", "systemd-bootx64.efi", "boot-modules.json"]);
    expect(server.requests[0]).toMatchObject({ range: `bytes=${kept}-`, status: 206 });
    const before = 20_000 * 2; // vmlinuz and initrd.img
    expect(progress[0]).toMatchObject({ file: "vmlinuz", done: 20_000 });
    expect(progress.find((p) => p.file === "rootfs.img")?.done).toBe(before + kept);
  });

  it("starts a file over when the server answers a range with the whole file", async () => {
    server.misbehave("rootfs.img", "dropHalf", 1);
    await failure(fetch().done);
    server.misbehave("rootfs.img", "ignoreRange");
    server.requests.length = 0;
    await fetch().done;
    await verifyRelease(await requireRelease(into));
    expect(server.requests[0]).toMatchObject({
      path: expect.stringMatching(/rootfs\.img$/),
      range: expect.stringMatching(/^bytes=\d+-$/),
      status: 200,
    });
  });

  it("refuses a file whose bytes differ from release.toml, naming it, and removes it", async () => {
    const rootfs = await readFile(join(served, "rootfs.img"));
    rootfs[1000] = (rootfs[1000] ?? 0) ^ 0xff;
    await writeFile(join(served, "rootfs.img"), rootfs);
    const error = await failure(fetch().done);
    expect(error).toMatchObject({ failure: "DigestMismatch", file: "rootfs.img", retry: false });
    expect(error.why).toBe("rootfs.img does not match release.toml");
    expect(error.message).toMatch(
      new RegExp(
        `^rootfs\\.img at ${server.url}rootfs\\.img has sha256 [0-9a-f]{64}, release\\.toml says [0-9a-f]{64} \\(`,
      ),
    );
    expect(error.reason).toBe("DigestMismatch");
    const left = await readdir(into);
    expect(left).not.toContain("rootfs.img");
    expect(left).toContain("vmlinuz");
  });

  it("refuses a file the server offers with another size than release.toml's, naming it", async () => {
    await writeFile(join(served, "initrd.img"), "short");
    const error = await failure(fetch().done);
    expect(error).toMatchObject({ failure: "DigestMismatch", file: "initrd.img", retry: false });
    expect(error.message).toContain(
      "initrd.img is not the file release.toml lists: the server offers 5 bytes, release.toml says 20000",
    );
    expect(await readdir(into)).not.toContain("initrd.img");
  });

  it("refuses a release.toml that is not the spec's digest, and fetches nothing else", async () => {
    const other = "0".repeat(64);
    const error = await failure(fetch({ sha256: other }).done);
    expect(error).toMatchObject({ failure: "DigestMismatch", file: "release.toml", retry: false });
    expect(error.message).toBe(
      `release.toml at ${server.url}release.toml has sha256 ${digest}, the spec's release_sha256 is ${other} (set release_sha256 to the sha256 of the release at url (sha256sum release.toml), or publish that release there again)`,
    );
    expect(requested()).toEqual(["release.toml"]);
    expect(await readdir(into)).toEqual([]);
  });

  it("ends with Stopped when the caller's signal aborts, between files or while verifying", async () => {
    const stop = new AbortController();
    const error = await failure(
      fetchRelease({
        url: server.url,
        releaseSha256: digest,
        dir: into,
        stallMs: 10_000,
        signal: stop.signal,
        onProgress: (p) => {
          if (p.step === "verifying") stop.abort();
        },
      }),
    );
    expect(error).toMatchObject({ failure: "Stopped", retry: false });
  });

  it("clears another release's files from the folder before it fetches", async () => {
    await fetch().done;
    // The next release: another rootfs.img, and so another release.toml and digest.
    await rm(served, { recursive: true });
    const next = await writeFakeRelease(served, 1024 * 1024 + 7);
    server.requests.length = 0;
    await fetch({ sha256: next }).done;
    await verifyRelease(await requireRelease(into));
    expect(server.requests.every((r) => r.range === undefined)).toBe(true);
  });
});
