// One URL into one file against servers on 127.0.0.1 that each answer one way: the errors
// a machine meets (refused, HTTP status, a cut, a stall, too many bytes, a stop), what a
// resumed file does with 206, 416 and a range that does not continue it, and redirects.
import { mkdtemp, readFile, rm, stat, writeFile } from "node:fs/promises";
import { createServer, type RequestListener, type Server } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { DownloadError } from "./download-error.ts";
import { type FetchFileOptions, fetchFile } from "./fetch-file.ts";

const BODY = Buffer.from("0123456789".repeat(1000));

let dir: string;
let path: string;
let servers: Server[] = [];
let ranges: (string | undefined)[] = [];

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), "liken-fetch-file-"));
  path = join(dir, "file");
  ranges = [];
});

afterEach(async () => {
  for (const s of servers) {
    s.closeAllConnections();
    await new Promise<void>((resolve) => s.close(() => resolve()));
  }
  servers = [];
  await rm(dir, { recursive: true, force: true });
});

/** A server that answers with `handler`; its URL for /file. */
async function serve(handler: RequestListener): Promise<string> {
  const server = createServer((req, res) => {
    ranges.push(req.headers.range);
    handler(req, res);
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address();
  return `http://127.0.0.1:${typeof address === "object" && address ? address.port : 0}/file`;
}

/** Serves BODY with ranges, as a static server does. */
const withRanges: RequestListener = (req, res) => {
  const start = Number(/^bytes=(\d+)-$/.exec(req.headers.range ?? "")?.[1] ?? Number.NaN);
  if (Number.isNaN(start))
    return void res.writeHead(200, { "content-length": String(BODY.length) }).end(BODY);
  if (start >= BODY.length)
    return void res.writeHead(416, { "content-range": `bytes */${BODY.length}` }).end();
  res
    .writeHead(206, { "content-range": `bytes ${start}-${BODY.length - 1}/${BODY.length}` })
    .end(BODY.subarray(start));
};

async function failure(options: Partial<FetchFileOptions> & { url: string }) {
  const error = await fetchFile({ path, stallMs: 5000, ...options }).then(
    () => null,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(DownloadError);
  return error as DownloadError;
}

describe("fetchFile", () => {
  it("writes the file and reports its progress against Content-Length", async () => {
    const url = await serve(withRanges);
    const seen: [number, number | null][] = [];
    const got = await fetchFile({
      url,
      path,
      stallMs: 5000,
      onProgress: (d, t) => seen.push([d, t]),
    });
    expect(got).toEqual({ bytes: BODY.length, kept: 0 });
    expect(await readFile(path)).toEqual(BODY);
    expect(ranges).toEqual([undefined]);
    expect(seen[0]).toEqual([0, BODY.length]);
    expect(seen.at(-1)).toEqual([BODY.length, BODY.length]);
  });

  it("resumes with a range and appends the 206's bytes", async () => {
    const url = await serve(withRanges);
    await writeFile(path, BODY.subarray(0, 4000));
    expect(await fetchFile({ url, path, stallMs: 5000 })).toEqual({
      bytes: BODY.length,
      kept: 4000,
    });
    expect(ranges).toEqual(["bytes=4000-"]);
    expect(await readFile(path)).toEqual(BODY);
  });

  it("takes a file already whole as done: no request with its size, nothing fetched on a 416", async () => {
    const url = await serve(withRanges);
    await writeFile(path, BODY);
    expect(await fetchFile({ url, path, stallMs: 5000, expectedSize: BODY.length })).toEqual({
      bytes: BODY.length,
      kept: BODY.length,
    });
    expect(ranges).toEqual([]);
    expect(await fetchFile({ url, path, stallMs: 5000 })).toEqual({
      bytes: BODY.length,
      kept: BODY.length,
    });
    expect(ranges).toEqual([`bytes=${BODY.length}-`]);
  });

  it("starts over a file longer than its size in release.toml, or than the server's", async () => {
    const url = await serve(withRanges);
    await writeFile(path, Buffer.concat([BODY, BODY]));
    await fetchFile({ url, path, stallMs: 5000, expectedSize: BODY.length });
    expect(ranges).toEqual([undefined]);
    await writeFile(path, Buffer.concat([BODY, BODY]));
    await fetchFile({ url, path, stallMs: 5000 });
    // 416 names a shorter file than this one: it starts over, once.
    expect(ranges).toEqual([undefined, `bytes=${2 * BODY.length}-`, undefined]);
    expect(await readFile(path)).toEqual(BODY);
  });

  it("starts over when the server's part does not continue the file", async () => {
    const url = await serve((req, res) => {
      if (!req.headers.range) return void res.writeHead(200).end(BODY);
      res
        .writeHead(206, { "content-range": `bytes 0-99/${BODY.length}` })
        .end(BODY.subarray(0, 100));
    });
    await writeFile(path, "x".repeat(500));
    expect(await fetchFile({ url, path, stallMs: 5000 })).toEqual({ bytes: BODY.length, kept: 0 });
    expect(ranges).toEqual(["bytes=500-", undefined]);
    expect(await readFile(path)).toEqual(BODY);
  });

  it("keeps the bytes of a cut connection, even without Content-Length, for the next attempt", async () => {
    const url = await serve((_req, res) => {
      res.writeHead(200); // chunked: no length announced
      res.write(BODY.subarray(0, 3000), () => res.socket?.destroy());
    });
    const error = await failure({ url, expectedSize: BODY.length });
    expect(error).toMatchObject({ failure: "ConnectionClosed", retry: true });
    expect(error.message).toContain(url);
    expect((await stat(path)).size).toBe(3000);
  });

  it("says connection refused, naming the URL", async () => {
    const url = await serve(withRanges);
    for (const s of servers) await new Promise<void>((resolve) => s.close(() => resolve()));
    servers = [];
    const error = await failure({ url });
    expect(error.failure).toBe("ConnectionRefused");
    expect(error.message).toBe(
      `download of ${url} failed: connection refused (check that the release server runs and listens on that port; the machine retries on its own)`,
    );
  });

  it("says the HTTP status a server answers, and keeps no file", async () => {
    const url = await serve((_req, res) => res.writeHead(404, "Not Found").end("no such file"));
    const error = await failure({ url });
    expect(error).toMatchObject({ failure: "HttpStatus", retry: true });
    expect(error.why).toBe("the server answered HTTP 404 Not Found");
    expect(error.message).toMatch(
      new RegExp(`^download of ${url} failed: the server answered HTTP 404`),
    );
    await expect(stat(path)).rejects.toThrow();
  });

  it("stops after stallMs without a byte, also mid-file", async () => {
    const url = await serve((_req, res) => {
      res.writeHead(200, { "content-length": String(BODY.length) });
      res.write(BODY.subarray(0, 100)); // and nothing more
    });
    const started = performance.now();
    const error = await failure({ url, stallMs: 500 });
    expect(error).toMatchObject({ failure: "Stalled", why: "no bytes for 0.5 s", retry: true });
    expect(performance.now() - started).toBeGreaterThanOrEqual(500);
    expect((await stat(path)).size).toBe(100);
  });

  it("refuses a file larger than maxBytes, by its length or by its bytes", async () => {
    const url = await serve(withRanges);
    expect(await failure({ url, maxBytes: 100 })).toMatchObject({
      failure: "TooLarge",
      why: "the file is larger than 100 bytes",
    });
    const chunked = await serve((_req, res) => {
      res.writeHead(200);
      res.end(BODY);
    });
    expect(await failure({ url: chunked, maxBytes: 100 })).toMatchObject({ failure: "TooLarge" });
  });

  it("refuses a server's size that is not release.toml's, and removes the file", async () => {
    const url = await serve(withRanges);
    await writeFile(path, BODY.subarray(0, 10));
    const error = await failure({ url, expectedSize: BODY.length + 1 });
    expect(error).toMatchObject({ failure: "SizeMismatch", retry: true });
    expect(error.why).toBe(
      `the server offers ${BODY.length} bytes, release.toml says ${BODY.length + 1}`,
    );
    await expect(stat(path)).rejects.toThrow();
  });

  it("follows a redirect, and refuses one to another scheme", async () => {
    const target = await serve(withRanges);
    const moved = await serve((_req, res) => res.writeHead(302, { location: target }).end());
    await fetchFile({ url: moved, path, stallMs: 5000 });
    expect(await readFile(path)).toEqual(BODY);
    const away = await serve((_req, res) =>
      res.writeHead(301, { location: "ftp://127.0.0.1/file" }).end(),
    );
    expect((await failure({ url: away })).why).toBe(
      "the server redirects to ftp://127.0.0.1/file, which is not followed",
    );
  });

  it("ends with Stopped when the caller's signal aborts, and is not retried", async () => {
    const url = await serve((_req, res) => res.writeHead(200).flushHeaders());
    const stop = new AbortController();
    setTimeout(() => stop.abort(), 100);
    const error = await failure({ url, signal: stop.signal });
    expect(error).toMatchObject({ failure: "Stopped", retry: false });
  });
});
