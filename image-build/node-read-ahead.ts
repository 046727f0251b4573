// What the initramfs reads of Node.js ahead of its start. A start touches about a third of
// the 95 MB binary (measured with /proc/self/pagemap: 32 MB for `node -e 0`, 34 MB for
// `liken-stick --help`): its code, V8's snapshot and built-in scripts, the head of its
// ICU data and its data segment. The rest is the body of the ICU data (32 MB, which only a
// locale's use through Intl reads) and the symbols and debug sections (12 MB, which no
// process maps). Read through erofs and dm-verity under emulation, the whole file took
// 2.2 s and what a start touches about half of that; reading all of it also kept a CPU busy
// while Node.js started beside it.
import { type FileRange, readElfRanges } from "./inputs/elf-ranges.ts";

/** A run of whole MiB of a file, in dd's terms. */
export interface ReadAhead {
  readonly skipMiB: number;
  readonly countMiB: number;
}

const MIB = 1024 * 1024;
// Node.js's ICU data, one exported object in full-icu builds (icudt78_dat in Node.js 20.20).
const ICU_DATA = /^icudt\d+_dat$/;

/** The MiB of `node` that its loaded segments cover, without those wholly inside its ICU data. */
export async function nodeReadAhead(node: string): Promise<ReadAhead[]> {
  const { loaded, symbols } = await readElfRanges(node, ICU_DATA);
  return readAheadOf(loaded, symbols);
}

/** Whole MiB touching `loaded`, less those wholly inside one of `skipped`, as runs. */
export function readAheadOf(
  loaded: readonly FileRange[],
  skipped: readonly FileRange[],
): ReadAhead[] {
  const mib = new Set<number>();
  for (const r of loaded)
    for (let m = Math.floor(r.offset / MIB); m * MIB < r.offset + r.size; m++) mib.add(m);
  for (const r of skipped)
    for (let m = Math.ceil(r.offset / MIB); (m + 1) * MIB <= r.offset + r.size; m++) mib.delete(m);
  const runs: ReadAhead[] = [];
  for (const m of [...mib].sort((a, b) => a - b)) {
    const last = runs[runs.length - 1];
    if (last && last.skipMiB + last.countMiB === m)
      runs[runs.length - 1] = { ...last, countMiB: last.countMiB + 1 };
    else runs.push({ skipMiB: m, countMiB: 1 });
  }
  return runs;
}

/**
 * Shell that reads `ranges` of `path` in the background, each run by its own `dd` started at
 * once: a read started later, after switch_root, would find neither the file's path nor dd
 * (switch_root deletes the initramfs), and the last run holds what Node.js's start touches
 * first (its data segment and constructors' table).
 */
export function readAheadSh(path: string, ranges: readonly ReadAhead[]): string {
  return ranges
    .map(
      (r) => `dd if=${path} of=/dev/null bs=1M skip=${r.skipMiB} count=${r.countMiB} 2>/dev/null &`,
    )
    .join("\n");
}

/**
 * Shell that starts Node.js from the root mounted on `root` once, in the background, to no
 * end but its start: it reads what a start reads in the order a start reads it (the
 * read-ahead's runs come in file order), so the next start (the stick's menu, a release's
 * boot agent) finds it in memory, and under emulation its code already translated.
 */
export function warmStartSh(root: string): string {
  return `chroot ${root} /usr/bin/node -e 0 > /dev/null 2>&1 &`;
}
