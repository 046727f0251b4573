// One URL into one file over http or https (node:http, node:https), streamed to disk: it
// resumes from the bytes already in the file with `Range: bytes=N-` where the server
// answers 206 (a 200 starts the file over), and a stall watcher stops it when no byte
// arrives for `stallMs`, from the request to the last byte (docs/troubleshoot.md: one
// minute on a machine). Every failure is a DownloadError naming the URL.

import { once } from "node:events";
import { createWriteStream } from "node:fs";
import { stat, truncate, unlink } from "node:fs/promises";
import { request as httpRequest, type IncomingMessage } from "node:http";
import { request as httpsRequest } from "node:https";
import { addAbortSignal } from "node:stream";
import { finished } from "node:stream/promises";
import { describeFileError } from "../../common/file-errors.ts";
import { DownloadError, RETRIES } from "./download-error.ts";

export interface FetchFileOptions {
  readonly url: string;
  readonly path: string;
  /** No byte for this long stops the download: 60 s on a machine. */
  readonly stallMs: number;
  /**
   * The file's size in release.toml: a file already that long is not fetched again (its
   * digest decides), and a server that offers another size is refused.
   */
  readonly expectedSize?: number;
  /** More bytes than this are refused: for release.toml, whose size nothing vouches for. */
  readonly maxBytes?: number;
  /** Ends the download with Stopped: the target changed. */
  readonly signal?: AbortSignal;
  /** After the headers and after every chunk: bytes in the file, and the whole file's size when known. */
  readonly onProgress?: (done: number, total: number | null) => void;
}

export interface FetchedFile {
  /** Bytes in the file now. */
  readonly bytes: number;
  /** Bytes the file held before that this fetch kept (a resumed download); 0 when it started over. */
  readonly kept: number;
}

const MAX_REDIRECTS = 5;

/** Fetches `url` into `path`, resuming where the file stopped when the server allows it. */
export async function fetchFile(options: FetchFileOptions): Promise<FetchedFile> {
  const { path, expectedSize } = options;
  // No file yet is a fetch from the first byte.
  let have = (await stat(path).catch(() => null))?.size ?? 0;
  if (expectedSize !== undefined && have > expectedSize) {
    await truncate(path, 0);
    have = 0;
  }
  if (expectedSize !== undefined && have === expectedSize) {
    options.onProgress?.(have, have);
    return { bytes: have, kept: have };
  }
  const watch = stallWatch(options);
  try {
    const first = await attempt(options, watch, have);
    // The server sent another part than asked, or refused a range the file does not
    // complete: the file starts over, once.
    if (first !== "startOver") return first;
    await truncate(path, 0);
    const again = await attempt(options, watch, 0);
    if (again === "startOver")
      throw fail(options.url, "HttpStatus", "the server answered a plain request with a range");
    return again;
  } catch (error) {
    throw watch.cause() ?? asDownloadError(error, options.url);
  } finally {
    watch.end();
  }
}

interface Watch {
  readonly signal: AbortSignal;
  /** A byte arrived: the stall time starts again. */
  touch(): void;
  /** Why the watch stopped the download; null while it has not. */
  cause(): DownloadError | null;
  end(): void;
}

// One abort for the stall, the caller's signal and any failure found while reading, so the
// request, the response and the file stream all end together.
function stallWatch(options: FetchFileOptions): Watch {
  const stop = new AbortController();
  let cause: DownloadError | null = null;
  const end = (error: DownloadError) => {
    cause ??= error;
    stop.abort(error);
  };
  const seconds = `${Number((options.stallMs / 1000).toFixed(1))} s`;
  const timer = setTimeout(
    () =>
      end(
        fail(
          options.url,
          "Stalled",
          `no bytes for ${seconds}`,
          `a slow or broken link, or a server that stopped sending; ${RETRIES}`,
        ),
      ),
    options.stallMs,
  );
  const stopped = () =>
    end(fail(options.url, "Stopped", "stopped: the release to fetch changed", "nothing to do"));
  if (options.signal?.aborted) stopped();
  options.signal?.addEventListener("abort", stopped, { once: true });
  return {
    signal: stop.signal,
    touch: () => timer.refresh(),
    cause: () => cause,
    end: () => {
      clearTimeout(timer);
      options.signal?.removeEventListener("abort", stopped);
    },
  };
}

async function attempt(
  options: FetchFileOptions,
  watch: Watch,
  have: number,
): Promise<FetchedFile | "startOver"> {
  const { url } = options;
  const ranged = have > 0;
  const res = await get(url, ranged ? { range: `bytes=${have}-` } : {}, watch.signal);
  watch.touch();
  const answer = readAnswer(res, url, have, ranged);
  if (answer === "startOver" || answer === "complete") {
    res.destroy();
    if (answer === "complete") options.onProgress?.(have, have);
    return answer === "complete" ? { bytes: have, kept: have } : "startOver";
  }
  const kept = answer.append ? have : 0;
  const total = answer.total ?? options.expectedSize ?? null;
  const refusal = sizeRefusal(options, total);
  if (refusal) {
    res.destroy();
    // The file's bytes belong to another file than release.toml names: none is kept.
    await unlink(options.path).catch(() => undefined); // already gone is as good
    throw refusal;
  }
  let done = kept;
  options.onProgress?.(done, total);
  await writeAll(res, options.path, answer.append, watch.signal, (chunk) => {
    watch.touch();
    done += chunk.length;
    if (options.maxBytes !== undefined && done > options.maxBytes)
      throw tooLarge(url, options.maxBytes);
    options.onProgress?.(done, total);
  }).catch((error: unknown) => {
    // A cut connection says how far the file got; a stall or a stop says why itself.
    const code = (error as NodeJS.ErrnoException).code;
    if (!watch.cause() && (code === "ECONNRESET" || code === "EPIPE"))
      throw closedEarly(url, done, total);
    throw error;
  });
  return { bytes: checkedLength(url, done, total), kept };
}

// The response's bytes into the file. Unlike pipeline(), a cut connection or a stall
// still writes every byte received before it ends: the next attempt resumes after them.
async function writeAll(
  res: IncomingMessage,
  path: string,
  append: boolean,
  signal: AbortSignal,
  onChunk: (chunk: Buffer) => void,
): Promise<void> {
  addAbortSignal(signal, res);
  const out = createWriteStream(path, { flags: append ? "a" : "w" });
  let writeError: Error | null = null;
  out.on("error", (error) => {
    writeError ??= error;
    res.destroy();
  });
  try {
    for await (const chunk of res as AsyncIterable<Buffer>) {
      onChunk(chunk);
      if (!out.write(chunk)) await once(out, "drain");
    }
  } catch (error) {
    throw writeError ?? error;
  } finally {
    out.end();
    // A write that failed is told above, by the listener's error.
    await finished(out).catch(() => undefined);
  }
  if (writeError) throw writeError;
}

type Answer =
  | { readonly append: boolean; readonly total: number | null }
  | "startOver"
  | "complete";

// What the status and headers mean for the file: append to it (206), write it from the
// start (200), start over (a range that does not continue the file), or nothing to fetch
// (416 for a file already whole).
function readAnswer(res: IncomingMessage, url: string, have: number, ranged: boolean): Answer {
  const status = res.statusCode ?? 0;
  const range = /^bytes (?:(\d+)-\d+|\*)\/(\d+|\*)$/.exec(res.headers["content-range"] ?? "");
  const rangeTotal = range?.[2] === undefined || range[2] === "*" ? null : Number(range[2]);
  if (status === 200) return { append: false, total: contentLength(res) };
  if (status === 206 && ranged) {
    if (range?.[1] === undefined || Number(range[1]) !== have) return "startOver";
    return { append: true, total: rangeTotal };
  }
  if (status === 416 && ranged) return rangeTotal === have ? "complete" : "startOver";
  res.destroy();
  throw fail(
    url,
    "HttpStatus",
    `the server answered HTTP ${status}${res.statusMessage ? ` ${res.statusMessage}` : ""}`,
    `check that the url names the release's folder and that the server serves it; ${RETRIES}`,
  );
}

function contentLength(res: IncomingMessage): number | null {
  const text = res.headers["content-length"];
  return text !== undefined && /^\d+$/.test(text) ? Number(text) : null;
}

function sizeRefusal(options: FetchFileOptions, total: number | null): DownloadError | null {
  if (total === null) return null;
  if (options.maxBytes !== undefined && total > options.maxBytes)
    return tooLarge(options.url, options.maxBytes);
  if (options.expectedSize !== undefined && total !== options.expectedSize)
    return fail(
      options.url,
      "SizeMismatch",
      `the server offers ${total} bytes, release.toml says ${options.expectedSize}`,
      "the server holds another file under that name: publish the release again",
    );
  return null;
}

function checkedLength(url: string, done: number, total: number | null): number {
  if (total === null || done === total) return done;
  if (done < total) throw closedEarly(url, done, total);
  throw fail(
    url,
    "SizeMismatch",
    `the server sent ${done} bytes, more than the ${total} it announced`,
    `check the server; ${RETRIES}`,
  );
}

function closedEarly(url: string, done: number, total: number | null): DownloadError {
  return fail(
    url,
    "ConnectionClosed",
    `the connection closed after ${done}${total === null ? "" : ` of ${total}`} bytes`,
    `${RETRIES}, from where the file stopped`,
  );
}

function tooLarge(url: string, maxBytes: number): DownloadError {
  return fail(
    url,
    "TooLarge",
    `the file is larger than ${maxBytes} bytes`,
    "check that the url names a release's folder",
  );
}

// A GET of `url`, following redirects (the digest, not the server, vouches for the bytes),
// resolved with the final response's headers.
function get(
  url: string,
  headers: Record<string, string>,
  signal: AbortSignal,
  redirects = 0,
): Promise<IncomingMessage> {
  return new Promise((resolve, reject) => {
    const target = new URL(url);
    const options = { headers: { ...headers, "user-agent": "liken" }, signal };
    const onResponse = (res: IncomingMessage) => {
      const location = res.headers.location;
      if (res.statusCode && res.statusCode >= 300 && res.statusCode < 400 && location) {
        res.resume();
        const next = new URL(location, target);
        if (redirects >= MAX_REDIRECTS || !/^https?:$/.test(next.protocol))
          return reject(
            fail(
              url,
              "HttpStatus",
              `the server redirects to ${next.href}, which is not followed`,
              "name the release's folder in url as the server serves it",
            ),
          );
        return resolve(get(next.href, headers, signal, redirects + 1));
      }
      resolve(res);
    };
    const req =
      target.protocol === "https:"
        ? httpsRequest(target, options, onResponse)
        : httpRequest(target, options, onResponse);
    req.on("error", reject);
    req.end();
  });
}

function fail(url: string, failure: DownloadError["failure"], why: string, hint = RETRIES) {
  return new DownloadError({ failure, url, why, hint });
}

/** What a thrown error from the network or the disk was, as a DownloadError. */
function asDownloadError(error: unknown, url: string): DownloadError {
  if (error instanceof DownloadError) return error;
  const e = error as NodeJS.ErrnoException;
  if (typeof e?.path === "string" && e.syscall) {
    const { what, hint } = describeFileError(e);
    return new DownloadError({ failure: "WriteFailed", url, why: what, hint, cause: error });
  }
  const network = NETWORK_ERRORS[e?.code ?? ""];
  if (network)
    return new DownloadError({
      failure: network.failure,
      url,
      why: network.why,
      hint: network.hint,
      cause: error,
    });
  return new DownloadError({
    failure: "ConnectionFailed",
    url,
    why: (e?.message ?? String(error)).split("\n")[0] ?? "",
    hint: `check the machine's network and the server; ${RETRIES}`,
    cause: error,
  });
}

const NETWORK_ERRORS: Readonly<
  Record<string, { failure: DownloadError["failure"]; why: string; hint: string }>
> = {
  ECONNREFUSED: {
    failure: "ConnectionRefused",
    why: "connection refused",
    hint: `check that the release server runs and listens on that port; ${RETRIES}`,
  },
  ECONNRESET: {
    failure: "ConnectionClosed",
    why: "the server closed the connection",
    hint: `${RETRIES}, from where the file stopped`,
  },
  EPIPE: {
    failure: "ConnectionClosed",
    why: "the server closed the connection",
    hint: `${RETRIES}, from where the file stopped`,
  },
  ENOTFOUND: {
    failure: "ConnectionFailed",
    why: "the server's name is not known",
    hint: `check the url's host and the machine's nameservers; ${RETRIES}`,
  },
  EAI_AGAIN: {
    failure: "ConnectionFailed",
    why: "the server's name could not be looked up",
    hint: `check the machine's nameservers; ${RETRIES}`,
  },
  EHOSTUNREACH: {
    failure: "ConnectionFailed",
    why: "no route to the server",
    hint: `check the machine's network and routes; ${RETRIES}`,
  },
  ENETUNREACH: {
    failure: "ConnectionFailed",
    why: "no route to the server's network",
    hint: `check the machine's network and routes; ${RETRIES}`,
  },
  ETIMEDOUT: {
    failure: "ConnectionFailed",
    why: "the connection timed out",
    hint: `check the machine's network and the server; ${RETRIES}`,
  },
};
