// Reads and appends the crash journal partition (journal-format.ts) through a file handle:
// the boot agent on the partition's device, `inspect` on the whole disk at the partition's
// offset. The header's install id must be this install's: records an earlier install left
// in the same blocks are not this machine's crashes.
import type { FileHandle } from "node:fs/promises";
import { MIB } from "../common/size.ts";
import { decodeJournalHeader, JOURNAL_HEADER_SIZE, type JournalHeader } from "./journal-header.ts";
import type { CrashRecord } from "./journal-records.ts";
import {
  appendOffset,
  encodeRecord,
  holdsRecordMagic,
  type JournalScan,
  nextSeq,
  scanRecords,
} from "./journal-records.ts";

export interface Journal {
  readonly header: JournalHeader;
  readonly scan: JournalScan;
  /** The records area's bytes: the header's size, within the partition that holds it. */
  readonly areaSize: number;
}

/** The journal at `start` of `handle`; undefined when its header does not verify. */
export async function readJournal(
  handle: FileHandle,
  start: number,
  size: number,
): Promise<Journal | undefined> {
  const head = Buffer.alloc(JOURNAL_HEADER_SIZE);
  await handle.read(head, 0, head.length, start);
  const header = decodeJournalHeader(head);
  if (!header) return undefined;
  const areaSize = Math.max(0, Math.min(size, header.partitionSize) - header.recordsOffset);
  // Read a MiB at a time up to the first MiB past the last record (holdsRecordMagic):
  // reading the whole area at every boot (8 MiB in the tests) took the boot agent 0.5 to
  // 0.8 s under emulation, the longest step before its `up`. Each MiB is allocated as it is
  // read, not the area at once: the sizes come from the disk (a GPT and a header that name
  // terabytes had the area allocated whole, or thrown as a RangeError: journal-io.fuzz.test.ts).
  // Not zeroed first (a tenth of a second under emulation): only what was read is used.
  const chunks: Buffer[] = [];
  for (let end = 0; end < areaSize; ) {
    const chunk = Buffer.allocUnsafe(Math.min(MIB, areaSize - end));
    const { bytesRead } = await handle.read(
      chunk,
      0,
      chunk.length,
      start + header.recordsOffset + end,
    );
    chunks.push(chunk.subarray(0, bytesRead));
    end += bytesRead;
    if (bytesRead < chunk.length || !holdsRecordMagic(chunk.subarray(0, bytesRead))) break;
  }
  const area = chunks.length === 1 ? (chunks[0] as Buffer) : Buffer.concat(chunks);
  return { header, scan: scanRecords(area), areaSize };
}

/**
 * Appends each crash the journal does not hold yet (by id), synced; returns the journal
 * after. `handle` is the journal partition itself (the agent's), so offsets start at 0;
 * each record starts on a `block` boundary (the disk's physical block, appendOffset).
 * The records area is read once and kept up to date in memory, not read again per record.
 */
export async function appendCrashes(
  handle: FileHandle,
  journal: Journal,
  crashes: readonly CrashRecord[],
  block?: number,
): Promise<Journal> {
  const { header, areaSize } = journal;
  if (crashes.length === 0) return journal;
  // The area readJournal bounded by the partition: the header's own size may name more
  // than the partition holds, or less than the header (journal-io.fuzz.test.ts).
  const area = Buffer.alloc(areaSize);
  await handle.read(area, 0, area.length, header.recordsOffset);
  let scan = journal.scan;
  for (const crash of crashes) {
    if (scan.records.some((r) => r.crash.id === crash.id)) continue;
    const bytes = encodeRecord(nextSeq(scan), crash);
    if (bytes.length > area.length) continue;
    const offset = appendOffset(scan, bytes.length, area.length, block);
    await handle.write(bytes, 0, bytes.length, header.recordsOffset + offset);
    await handle.sync();
    bytes.copy(area, offset);
    scan = scanRecords(area);
  }
  return { header, scan, areaSize };
}
