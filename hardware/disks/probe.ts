// Reads what disks hold, where data lives, within a fixed read budget (docs/disks.md):
// - the first 16 MiB and the last 2 MiB, and the liken claim's two sectors;
// - 32 samples of 128 KiB spread evenly over the rest of the disk, so data whose both
//   ends were zeroed is still found;
// - the partition tables there, judged before any tool reads the disk (probe-tables.ts);
// - blkid's low-level probe at the usual partition starts (sectors 34 and 63, 1 MiB,
//   2 MiB, and where installers' second partitions start) and at every start a sane
//   primary or backup GPT or an MBR names, so a filesystem whose table was zapped is found;
// - wipefs on the disk and on each partition the kernel knows, unless what was read proves
//   it would find nothing, or the disk's GPT would make it read without bound.
// On a spinning disk that is about 55 seeks and 22 MiB; it never writes. No disk costs
// more than its budget (probe-budget.ts), whatever its bytes say.
import { constants, open } from "node:fs/promises";
import { setTimeout as sleep } from "node:timers/promises";
import { mapLimit } from "../../common/map-limit.ts";
import { KIB, MIB } from "../../common/size.ts";
import { CLAIM_HEAD_OFFSET, CLAIM_SIZE, claimTailOffset, judgeClaim } from "../../formats/claim.ts";
import { isZero } from "../../formats/write-image.ts";
import { probeAt } from "../../tools/blkid.ts";
import { CommandError } from "../../tools/exec.ts";
import { findSignaturesOfMany, type Signature } from "../../tools/wipefs.ts";
import { DiskReader, ReadBudgetSpent } from "./disk-reader.ts";
import { Budget, probeBudgetMs } from "./probe-budget.ts";
import { readTables } from "./probe-tables.ts";
import type { ContentProbe, DiskFacts, ProbeFailure, ProbeKind } from "./types.ts";

export const HEAD_BYTES = 16 * MIB;
export const TAIL_BYTES = MIB;
export const SAMPLE_COUNT = 32;
export const SAMPLE_BYTES = 128 * KIB;
// Disks probed at once: each holds its 16 MiB head while probed (100 disks at once took
// 1.9 GB and three times as long as 20 at a time).
const PROBES_AT_ONCE = 4;
// Where a second partition often starts, after the first partition an installer makes by
// default (an ESP or /boot of 100, 116, 128, 256, 260, 500, 512, 537, 600, 616, 1024,
// 1536, 1624 or 2048 MiB from 1 MiB): a zapped table whose first partition is empty still
// shows what the second holds.
const COMMON_STARTS_MIB = [
  101, 117, 129, 257, 261, 501, 513, 538, 601, 617, 1025, 1537, 1625, 2049,
];

/**
 * The probe of each disk, in the order given. `held` names disks this process holds open
 * exclusively (the installer, classifying its targets again): their exclusive open is ours.
 */
export async function probeDisks(
  disks: readonly DiskFacts[],
  held: ReadonlySet<string> = new Set(),
): Promise<ContentProbe[]> {
  return mapLimit(disks, PROBES_AT_ONCE, (d) =>
    d.bootMedium ? Promise.resolve(BOOT_MEDIUM) : probeDisk(d, held.has(d.path)),
  );
}

// The disk the machine booted from (the stick) is never a target and reads "boot-medium"
// alone, so nothing of it is read: its 16 MiB head, samples and wipefs cost the stick's
// menu a second under emulation, through USB.
const BOOT_MEDIUM: ContentProbe = {
  signatures: [],
  found: [],
  mbrPartitions: 0,
  claim: { state: "none" },
  failed: [],
};

async function probeDisk(facts: DiskFacts, held: boolean): Promise<ContentProbe> {
  if (DiskReader.stillReading(facts.path)) return { ...BOOT_MEDIUM, failed: ["read:timeout"] };
  const budget = new Budget(probeBudgetMs(facts));
  const reader = new DiskReader(facts.path, facts.size, budget);
  const { probe, wholeZero, gptUnbounded, spent } = await readDisk(
    facts,
    held,
    budget,
    reader,
  ).finally(() => reader.close());
  if (spent) return probe;
  // wipefs on a whole disk looks where libblkid's probers look from its start (the last of
  // them, a LUKS2 secondary header, at 4 MiB) and from its end (RAID metadata, ZFS labels
  // and bcachefs's last superblock within 2 MiB of it), and on each partition the kernel
  // knows. Zeros in the first 16 MiB and the last 2 MiB of a disk without partitions leave
  // it nothing to find: its run is skipped, which on a blank machine is every run. A GPT
  // libblkid would follow without bound keeps it off the whole disk: blkid's windows at
  // the partition starts have looked there instead.
  const paths = [
    ...(gptUnbounded || (wholeZero && facts.partitions.length === 0) ? [] : [facts.path]),
    ...facts.partitions.map((p) => p.path),
  ];
  if (paths.length === 0) return probe;
  // A tool killed in the middle of a read the kernel has not answered ends only when it is
  // answered: the probe stops waiting for it at the budget all the same.
  const asked =
    budget.leftMs > 0 ? await budget.within(findSignaturesOfMany(paths, budget.leftMs)) : "timeout";
  const found = asked === "timeout" ? new Map(paths.map((p) => [p, TIMED_OUT] as const)) : asked;
  const { signatures, failed } = signaturesOf(facts, found);
  return { ...probe, signatures, failed: [...new Set([...probe.failed, ...failed])].sort() };
}

const TIMED_OUT = new Error("the disk's probe budget was spent");

/** wipefs's answer for the disk and its partitions, partition signatures at disk offsets. */
function signaturesOf(
  facts: DiskFacts,
  found: Map<string, Signature[] | Error>,
): { signatures: Signature[]; failed: ProbeFailure[] } {
  const signatures: Signature[] = [];
  const failed: ProbeFailure[] = [];
  for (const [path, start] of [
    [facts.path, 0] as const,
    ...facts.partitions.map((p) => [p.path, p.start] as const),
  ]) {
    const list = found.get(path);
    if (list === undefined) continue;
    if (!Array.isArray(list)) {
      failed.push(failure("wipefs", list));
      continue;
    }
    for (const s of list) {
      const offset = s.offset + start;
      signatures.push(start === 0 ? s : { ...s, offset, offsetText: `0x${offset.toString(16)}` });
    }
  }
  return { signatures, failed };
}

// The errno says what kind of failure it was (EIO: the disk; EACCES: not root); a tool
// stopped by the disk's budget says timeout.
function failure(kind: ProbeKind, error: unknown): ProbeFailure {
  if (
    error === TIMED_OUT ||
    error instanceof ReadBudgetSpent ||
    (error instanceof CommandError && error.timedOut)
  )
    return `${kind}:timeout`;
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  return typeof code === "string" && /^E[A-Z]+$/.test(code) ? `${kind}:${code}` : kind;
}

/** The probe without wipefs's signatures, whether the head and the disk's end are all zeros, and whether wipefs may read the whole disk. */
async function readDisk(
  facts: DiskFacts,
  held: boolean,
  budget: Budget,
  reader: DiskReader,
): Promise<{ probe: ContentProbe; wholeZero: boolean; gptUnbounded: boolean; spent: boolean }> {
  const failed = new Set<ProbeFailure>();
  const [read, exclusive] = await Promise.all([
    budget.within(readRegions(facts, reader)).catch((error: unknown) => {
      failed.add(failure("read", error));
      return undefined;
    }),
    facts.kind === "block" && !held
      ? // A disk the kernel already says is in use is busy for that reason: asked once.
        canOpenExclusively(facts.path, inUse(facts) ? 1 : BUSY_ASKS)
      : Promise.resolve(undefined),
  ]);
  const spent = read === "timeout";
  if (spent) failed.add("read:timeout");
  const bytes = read === "timeout" ? undefined : read;
  if (typeof exclusive === "object") failed.add(failure("open", exclusive.error));
  const tables = bytes
    ? await readTables(facts, bytes.head, bytes.end, (offset) =>
        // An EBR that cannot be read ends the chain there, as the kernel's reader does.
        reader.read(offset, facts.logicalSectorSize).catch(() => undefined),
      )
    : undefined;
  // With wipefs kept off the disk, blkid looks at its head in a window that ends before
  // the entry array the header names: a filesystem or LUKS header on the whole disk.
  const head = tables?.gptUnbounded ? [{ start: 0, size: Math.min(HEAD_BYTES, facts.size) }] : [];
  const starts = probeStarts(facts, [
    ...(tables?.gpt?.entries ?? []),
    ...(tables?.backupGpt?.entries ?? []),
    ...(tables?.mbr ?? []),
  ]);
  // A disk that spent its budget on the reads is no place to start tools: it reads
  // read:timeout alone.
  const atStarts = spent
    ? []
    : await probeStartsOf(facts, [...head, ...starts], bytes, budget, reader).catch(
        (error: unknown) => {
          failed.add(failure("blkid", error));
          return [];
        },
      );
  const headZero = bytes ? isZero(bytes.head) : undefined;
  // The tail is the end's last MiB: zeros in the end make it zeros.
  const endZero = bytes ? isZero(bytes.end) : undefined;
  const probe: ContentProbe = {
    signatures: [],
    found: atStarts.flat(),
    ...(tables?.gpt ? { gpt: tables.gpt } : {}),
    ...(tables?.backupGpt ? { backupGpt: tables.backupGpt } : {}),
    mbrPartitions: tables?.mbr.length ?? 0,
    ...(tables?.implausible.length ? { implausible: tables.implausible } : {}),
    ...(bytes
      ? { headZero, tailZero: endZero || isZero(bytes.tail), middleZero: bytes.middleZero }
      : {}),
    ...(typeof exclusive === "boolean" ? { exclusive } : {}),
    claim: bytes ? judgeClaim(bytes.claimHead, bytes.claimTail) : { state: "none" },
    failed: [...failed].sort(),
  };
  return {
    probe,
    wholeZero: headZero === true && endZero === true,
    gptUnbounded: tables?.gptUnbounded ?? false,
    spent,
  };
}

// A table's starts are probed for what its partitions hold, which only names the content
// of a disk its table already makes foreign (and lets a liken disk's claim be checked, whose
// table has six partitions): 32 starts cost about 0.3 s of blkid runs on an image file, and
// a table of 128 partitions with data in each took the whole of a file's budget.
const MAX_NAMED_STARTS = 32;

/** Where blkid looks: the usual partition starts, then every start a table names (with its size). */
function probeStarts(
  facts: DiskFacts,
  named: readonly { readonly start: number; readonly size: number }[],
): { start: number; size?: number }[] {
  const usual = [
    34 * facts.logicalSectorSize,
    63 * facts.logicalSectorSize,
    MIB,
    2 * MIB,
    ...COMMON_STARTS_MIB.map((m) => m * MIB),
  ];
  const byStart = new Map<number, number | undefined>(usual.map((s) => [s, undefined]));
  for (const p of named.slice(0, MAX_NAMED_STARTS)) {
    if (p.start > 0 && p.start < facts.size && p.size > 0)
      byStart.set(p.start, Math.min(p.size, facts.size - p.start));
  }
  return [...byStart]
    .filter(([start]) => start < facts.size)
    .sort(([a], [b]) => a - b)
    .map(([start, size]) => (size === undefined ? { start } : { start, size }));
}

type Regions = Awaited<ReturnType<typeof readRegions>>;

// blkid at each start where something is there, through one open of the disk, a few at a
// time: a table of 128 partitions is 128 starts.
const BLKIDS_AT_ONCE = 4;

async function probeStartsOf(
  facts: DiskFacts,
  starts: readonly { start: number; size?: number }[],
  regions: Regions | undefined,
  budget: Budget,
  reader: DiskReader,
) {
  return mapLimit(starts, BLKIDS_AT_ONCE, async (s) => {
    if (budget.leftMs <= 0) throw TIMED_OUT;
    if (regions && (await looksEmpty(reader, facts, s, regions))) return [];
    const what = await budget.within(probeAt(facts.path, s.start, s.size, budget.leftMs));
    if (what === "timeout") throw TIMED_OUT;
    return what ? [{ ...what, offset: s.start }] : [];
  });
}

// Where libblkid's probers look for a format from a start (util-linux 2.38 to 2.41,
// libblkid/src/superblocks): every magic in the first 512 KiB (ZFS's second label ends
// there; UFS, UDF's first anchor, btrfs and ISO 9660 lie below) but VMFS's volume header at
// 1 MiB and its filesystem header and bcachefs's second superblock at 2 MiB (vmfs.c,
// bcache.c); and in the last 2 MiB before the end of what it probes (RAID metadata: md, DDF,
// Promise up to 1.5 MiB from the end). When all of that is zeros there is nothing to find,
// and blkid is not started: on a blank disk none is.
const START_WINDOWS: readonly { readonly at: number; readonly bytes: number }[] = [
  { at: 0, bytes: 512 * KIB },
  { at: MIB, bytes: 4 * KIB },
  { at: 2 * MIB, bytes: 4 * KIB },
];
const END_BYTES = 2 * MIB;

async function looksEmpty(
  reader: DiskReader,
  facts: DiskFacts,
  at: { start: number; size?: number },
  regions: Regions,
): Promise<boolean> {
  // Bytes the head or the disk's end already hold are not read again.
  const zeroAt = async (position: number, length: number) => {
    const end = Math.min(position + length, facts.size);
    if (end <= position) return true;
    if (end <= regions.head.length) return isZero(regions.head.subarray(position, end));
    const endStart = facts.size - regions.end.length;
    if (position >= endStart)
      return isZero(regions.end.subarray(position - endStart, end - endStart));
    return isZero(await reader.read(position, end - position));
  };
  const limit = at.size === undefined ? facts.size : at.start + at.size;
  const windows = START_WINDOWS.filter((w) => at.start + w.at < limit).map((w) =>
    zeroAt(at.start + w.at, Math.min(w.bytes, limit - at.start - w.at)),
  );
  const tail =
    at.size === undefined
      ? isZero(regions.end)
      : zeroAt(Math.max(at.start, limit - END_BYTES), Math.min(at.size, END_BYTES));
  const zeros = await Promise.all([...windows, tail]);
  return zeros.every(Boolean);
}

/** Where the samples are: spread evenly between the head and the tail, 4 KiB aligned. */
export function samplePositions(size: number): number[] {
  const from = HEAD_BYTES;
  const span = size - TAIL_BYTES - from - SAMPLE_BYTES;
  if (span <= 0) return [];
  const step = span / SAMPLE_COUNT;
  return Array.from(
    { length: SAMPLE_COUNT },
    (_, i) => from + Math.floor((step * (i + 0.5)) / (4 * KIB)) * 4 * KIB,
  );
}

// Every region at once (DiskReader keeps a few reads in flight): under emulation the reads
// one after the other took twice as long.
async function readRegions(facts: DiskFacts, reader: DiskReader) {
  const at = (position: number, length: number) => reader.read(position, length);
  const [head, end, claimHead, claimTail, samples] = await Promise.all([
    at(0, HEAD_BYTES),
    at(facts.size - END_BYTES, END_BYTES),
    at(CLAIM_HEAD_OFFSET, CLAIM_SIZE),
    at(claimTailOffset(facts.size), CLAIM_SIZE),
    Promise.all(samplePositions(facts.size).map(async (p) => isZero(await at(p, SAMPLE_BYTES)))),
  ]);
  const tail = end.subarray(Math.max(0, end.length - TAIL_BYTES));
  return { head, tail, end, claimHead, claimTail, middleZero: samples.every(Boolean) };
}

// O_EXCL on a block device fails with EBUSY while anything holds it: a mount, a dm or md
// holder, swap, another installer. It also fails for the moment another probe like this
// one holds it (the stick runs a menu on each console, and both read the disks at start),
// so a busy disk is asked again before it counts as busy: a real holder stays.
const BUSY_ASKS = 4;
const BUSY_WAIT_MS = 100;

function inUse(facts: DiskFacts): boolean {
  return facts.mounts.length > 0 || facts.swap || facts.holders.length > 0;
}

async function canOpenExclusively(
  path: string,
  asks: number,
): Promise<boolean | { error: unknown }> {
  for (let ask = 1; ; ask++) {
    try {
      const handle = await open(path, constants.O_RDONLY | constants.O_EXCL);
      await handle.close();
      return true;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "EBUSY") return { error };
      if (ask >= asks) return false;
      await sleep(BUSY_WAIT_MS * ask);
    }
  }
}
