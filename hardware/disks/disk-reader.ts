// The probe's reads of one disk. A disk that does not answer (a failing drive that retries
// a sector for minutes, virtual media over a slow link) must cost the probe its budget and
// no more, and must not stall the rest of the stick: Node.js reads files on a pool of a few
// threads, and a read the kernel has not answered holds its thread however long that takes.
// So each disk has at most READS_AT_ONCE reads in flight, each of at most CHUNK bytes, none
// started once its budget is spent; and a disk whose reads from an earlier probe are still
// unanswered is not read again until they are (it reads `probe-failed:read:timeout`).
import { constants, type FileHandle, open } from "node:fs/promises";
import { MIB } from "../../common/size.ts";
import type { Budget } from "./probe-budget.ts";

const READS_AT_ONCE = 4;
const CHUNK = MIB;

/** Reads of each disk that the kernel has not answered yet, across probes, by path. */
const unanswered = new Map<string, number>();

/** The budget was spent before the read could start. */
export class ReadBudgetSpent extends Error {
  override readonly name = "ReadBudgetSpent";
}

export class DiskReader {
  readonly #path: string;
  readonly #size: number;
  readonly #budget: Budget;
  readonly #handle: Promise<FileHandle>;
  #active = 0;
  readonly #queue: (() => void)[] = [];
  #closing = false;
  #closed = false;

  /** Whether reads of `path` from an earlier probe are still unanswered. */
  static stillReading(path: string): boolean {
    return (unanswered.get(path) ?? 0) > 0;
  }

  constructor(path: string, size: number, budget: Budget) {
    this.#path = path;
    this.#size = size;
    this.#budget = budget;
    this.#handle = open(path, constants.O_RDONLY);
    // A failed open is each read's error; unobserved until then, it must not crash the process.
    this.#handle.catch(() => undefined);
  }

  /**
   * `length` bytes from `position`, cut at the disk's end. A short read is an error, not
   * zeros: zeros that were never read would call data blank.
   */
  async read(position: number, length: number): Promise<Buffer> {
    const start = Math.max(0, position);
    const buffer = Buffer.allocUnsafe(Math.max(0, Math.min(length, this.#size - start)));
    const chunks: Promise<void>[] = [];
    for (let at = 0; at < buffer.length; at += CHUNK)
      chunks.push(
        this.#readChunk(buffer.subarray(at, Math.min(at + CHUNK, buffer.length)), start + at),
      );
    await Promise.all(chunks);
    return buffer;
  }

  /** Closes the disk once the reads in flight have answered. */
  close(): void {
    this.#closing = true;
    this.#closeIfIdle();
  }

  async #readChunk(into: Buffer, position: number): Promise<void> {
    await this.#slot();
    try {
      if (this.#budget.leftMs <= 0)
        throw new ReadBudgetSpent(`${this.#path}: the probe's budget was spent`);
      const handle = await this.#handle;
      unanswered.set(this.#path, (unanswered.get(this.#path) ?? 0) + 1);
      try {
        for (let done = 0; done < into.length; ) {
          const { bytesRead } = await handle.read(into, done, into.length - done, position + done);
          if (bytesRead === 0)
            throw new Error(`${this.#path}: short read at byte ${position + done}`);
          done += bytesRead;
        }
      } finally {
        unanswered.set(this.#path, (unanswered.get(this.#path) ?? 1) - 1);
      }
    } finally {
      this.#active--;
      this.#queue.shift()?.();
      this.#closeIfIdle();
    }
  }

  #slot(): Promise<void> {
    if (this.#active < READS_AT_ONCE) {
      this.#active++;
      return Promise.resolve();
    }
    return new Promise((resolve) =>
      this.#queue.push(() => {
        this.#active++;
        resolve();
      }),
    );
  }

  #closeIfIdle(): void {
    if (!this.#closing || this.#closed || this.#active > 0 || this.#queue.length > 0) return;
    this.#closed = true;
    // A handle that never opened has nothing to close; one that fails to close holds nothing.
    this.#handle.then((h) => h.close()).catch(() => undefined);
  }
}
