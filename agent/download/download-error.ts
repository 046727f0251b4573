// Why a download failed, typed, so the agent decides between a retry (the schedule's
// backoff) and a refusal (DigestMismatch: no retry until the spec changes) without reading
// messages. Each says in one line what is wrong, naming the URL or the file, and what to do.
import { LikenError } from "../../common/errors.ts";

export type DownloadFailure =
  /** The server answered with a status other than 200 or 206. */
  | "HttpStatus"
  /** Nothing listens on the server's port. */
  | "ConnectionRefused"
  /** The server's name, route or TLS did not lead to a connection. */
  | "ConnectionFailed"
  /** The connection ended before the whole file arrived: the next attempt resumes. */
  | "ConnectionClosed"
  /** No bytes for the stall time. */
  | "Stalled"
  /** The server offers or sent another size than release.toml gives. */
  | "SizeMismatch"
  /** More bytes than a file may hold (release.toml, whose size nothing vouches for). */
  | "TooLarge"
  /** The download's own folder did not take the bytes. */
  | "WriteFailed"
  /** A file, or release.toml itself, is not what the spec's release_sha256 vouches for. */
  | "DigestMismatch"
  /** The agent stopped it: the target changed. */
  | "Stopped";

export interface DownloadErrorInit {
  readonly failure: DownloadFailure;
  readonly url: string;
  /** A few words for the console's retry line and the condition: "no bytes for 60 s". */
  readonly why: string;
  readonly hint: string;
  /** The release's file it concerns, by its name in release.toml. */
  readonly file?: string;
  /** The whole line's text when it is not `download of URL failed: why`. */
  readonly what?: string;
  readonly cause?: unknown;
}

/** A failed download: what is wrong (naming the URL or file) and what to do, in one line. */
export class DownloadError extends LikenError {
  readonly failure: DownloadFailure;
  readonly url: string;
  readonly why: string;
  readonly file: string | undefined;
  /**
   * Another attempt may go better. Not after DigestMismatch (the server holds other bytes
   * than the digest vouches for, and will again), nor after Stopped (the agent meant it).
   */
  readonly retry: boolean;
  constructor(init: DownloadErrorInit) {
    super({
      kind: "failed",
      what: init.what ?? `download of ${init.url} failed: ${init.why}`,
      hint: init.hint,
      reason: init.failure,
      ...("cause" in init ? { cause: init.cause } : {}),
    });
    this.failure = init.failure;
    this.url = init.url;
    this.why = init.why;
    this.file = init.file;
    this.retry = init.failure !== "DigestMismatch" && init.failure !== "Stopped";
  }
}

export const RETRIES = "the machine retries on its own";
