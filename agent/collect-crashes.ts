// Step 1 of the boot (docs/design.md section 6): the kernel's crash records, which efi-pstore
// kept in the firmware's variable store through the reset, go into the crash journal; then
// pstore is cleared so the firmware's space does not fill.
import { open, readdir, readFile, stat, unlink } from "node:fs/promises";
import { join } from "node:path";
import { appendCrashes, readJournal } from "../formats/journal-io.ts";
import { mount } from "../tools/mount.ts";
import { crashesFromPstore, type PstoreFile } from "./crash-parse.ts";
import { type Partition, step } from "./machine.ts";
import { PSTORE } from "./state-files.ts";
import type { CrashRecord } from "./types.ts";

export interface Collected {
  readonly all: readonly CrashRecord[];
  readonly newest: CrashRecord | null;
}

/**
 * pstore mounted, for collectCrashes; started beside the state partition's mount (each is
 * a program, a tenth of a second under emulation). Without pstore there is nothing to collect.
 */
export function mountPstore(): Promise<void> {
  // A machine without efi-pstore has no records to collect: nothing is lost.
  return mount("pstore", PSTORE, "pstore").catch(() => undefined);
}

// Step 1: pstore into the journal, then pstore cleared; a journal that does not verify, or
// that an earlier install wrote, keeps pstore as it is, so nothing is lost.
export async function collectCrashes(
  partition: Partition,
  installId: string | null,
  pstoreMounted: Promise<void>,
): Promise<Collected> {
  await pstoreMounted;
  const files: PstoreFile[] = [];
  // No pstore (not mounted, no efi-pstore): no records.
  for (const name of await readdir(PSTORE).catch(() => [] as string[])) {
    const path = join(PSTORE, name);
    files.push({
      name,
      // A record that vanished or cannot be read is parsed as empty and skipped.
      text: await readFile(path, "utf8").catch(() => ""),
      // Without its time the record is dated now: the crash is kept, its time approximate.
      mtimeMs: (await stat(path).catch(() => ({ mtimeMs: Date.now() }))).mtimeMs,
    });
  }
  const fresh = crashesFromPstore(files);
  const handle = await open(partition.device, "r+");
  try {
    const journal = await readJournal(handle, 0, partition.size);
    if (!journal || (installId !== null && journal.header.installId !== installId)) {
      step(
        journal
          ? "the crash journal belongs to another install: crash records stay in pstore"
          : "the crash journal's header does not verify: crash records stay in pstore",
      );
      return { all: fresh, newest: fresh.at(-1) ?? null };
    }
    // The block size only matters to an append: a boot without a new crash reads no sysfs.
    const block = fresh.length > 0 ? await physicalBlock(partition) : undefined;
    const after = await appendCrashes(handle, journal, fresh, block);
    // A record left in pstore is appended again next boot, and the journal keeps it once.
    for (const f of files) await unlink(join(PSTORE, f.name)).catch(() => undefined);
    const all = after.scan.records.map((r) => r.crash);
    step(
      `crash journal: ${all.length} record${all.length === 1 ? "" : "s"}, ${fresh.length} new${after.scan.skipped > 0 ? `, ${after.scan.skipped} torn or corrupt skipped` : ""}`,
    );
    return { all, newest: all[0] ?? null };
  } finally {
    await handle.close();
  }
}

/**
 * The physical block of the journal's disk (sysfs), where each record starts: 4096 on a 4Kn
 * or a 512e drive. 512 when sysfs does not say, or says something no record grid fits (not
 * a power of two from 512 to 64 KiB).
 */
async function physicalBlock(partition: Partition): Promise<number> {
  // Without sysfs's answer the 512-byte block, which every disk can write, is used.
  const text = await readFile(
    `/sys/block/${partition.disk}/queue/physical_block_size`,
    "utf8",
  ).catch(() => "");
  const n = Number(text.trim());
  return n >= 512 && n <= 65536 && (n & (n - 1)) === 0 ? n : 512;
}
