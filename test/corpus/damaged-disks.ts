// A corpus of damaged disks (issue 46, docs/disks.md "Untrusted bytes"): sparse image files
// whose tables, claim and journal say what no disk can hold, each named for what is wrong
// with it. The readers of a disk's bytes (`disks`, `inspect`, the boot agent's journal
// read) must answer on each within the probe's budget, never call one blank, never crash.
// Deterministic: no randomness, the same bytes on every run, in a few seconds.
//
// The tables are valid ones from formats/gpt-encode.ts with one field changed and every
// checksum over it computed again (test/corpus/damaged-table-cases.ts), so only a reader that
// judges what a header says, not just its CRC, sees the damage. The liken disks are one
// install by the real installer, copied and then damaged (test/corpus/damaged-liken.ts).
import { mkdir, open } from "node:fs/promises";
import { join } from "node:path";
import { crc32 } from "node:zlib";
import { GIB, MIB } from "../../common/size.ts";
import {
  CLAIM_HEAD_OFFSET,
  type Claim,
  claimTailOffset,
  encodeClaim,
} from "../../formats/claim.ts";
import { JOURNAL_HEADER_SIZE, journalHeader } from "../../formats/journal-header.ts";
import { MAX_PAYLOAD, RECORD_ALIGN } from "../../formats/journal-records.ts";
import { sparseFile } from "../disk-files.ts";
import { copyOf, type InstalledDisk, installedDisk, partition } from "./damaged-liken.ts";
import { damagedTables, type TableCase } from "./damaged-table-cases.ts";
import {
  ARRAY_BYTES,
  changeEntries,
  gptPatches,
  noise,
  type Patch,
  SECTOR,
  setEntry,
} from "./damaged-tables.ts";

export interface DamagedDisk {
  /** What is wrong with it; its file is NAME.img in the corpus's folder (imagePath()). */
  readonly name: string;
  /**
   * true: `disks` must give `partition-table:implausible`; false: it must not (the table is
   * sane, however unusual); undefined: either is right.
   */
  readonly implausible?: boolean;
  /** Other reasons `disks` must give. */
  readonly reasons: readonly string[];
  /** The verdict `disks` must give; undefined (a damaged install): `foreign` or `liken`, never blank. */
  readonly verdict?: "liken" | "foreign";
  /** `inspect` reads the disk (a claim verifies) or refuses it. */
  readonly inspect: "reads" | "refuses";
  /**
   * Problems `inspect` must name, exactly or as a prefix ending in "*"; `[]` on the intact
   * install means none at all.
   */
  readonly problems?: readonly string[];
  /** Made by the installer: whether its crash journal's header verifies where the boot agent reads it. */
  readonly journalValid?: boolean;
}

/** The folder makeDamagedDisks() made, and where the installer put the crash journal. */
export interface DamagedCorpus {
  readonly dir: string;
  readonly journal: { readonly start: number; readonly size: number };
}

interface LikenCase {
  readonly name: string;
  readonly implausible?: boolean;
  readonly reasons?: readonly string[];
  readonly verdict?: "liken";
  readonly problems?: readonly string[];
  readonly journalValid: boolean;
  readonly patches: (disk: InstalledDisk) => Patch[];
}

const CLAIM: Claim = {
  cluster: "corpus",
  machine: "m1",
  installId: "c1a10000-0000-4000-8000-000000000046",
  release: "1.0.0",
  use: "system",
  complete: true,
  createdAt: 1_796_000_000,
  generation: 1,
};

/** The liken claim's two copies on a disk of `size` bytes. */
function claims(size: number, tailInstallId = CLAIM.installId): Patch[] {
  return [
    { at: CLAIM_HEAD_OFFSET, bytes: encodeClaim(CLAIM) },
    { at: claimTailOffset(size), bytes: encodeClaim({ ...CLAIM, installId: tailInstallId }) },
  ];
}

const CLAIM_CASES: readonly TableCase[] = [
  {
    // The claim verifies, the table behind it does not: inspect reads what it can.
    name: "claim-valid-gpt-garbage",
    size: 2 * GIB,
    implausible: true,
    inspect: "reads",
    problems: ["gpt:implausible:*"],
    patches: (size) => [
      ...claims(size),
      {
        at: SECTOR,
        bytes: Buffer.concat([Buffer.from("EFI PART"), noise("gpt", 33 * SECTOR - 8)]),
      },
    ],
  },
  {
    name: "claims-disagree",
    size: 2 * GIB,
    reasons: ["liken-claim:conflict"],
    patches: (size) => claims(size, "c1a10000-0000-4000-8000-0000000000ff"),
  },
];

/** Every record slot of a journal's area holds a record header: magic, sequence, `length`, a wrong CRC. */
function recordHeaders(areaSize: number, length: (i: number) => number): Buffer {
  const area = Buffer.alloc(areaSize);
  for (let at = 0, i = 0; at + RECORD_ALIGN <= areaSize; at += RECORD_ALIGN, i++) {
    area.write("LIKENCR1", at, "ascii");
    area.writeBigUInt64LE(BigInt(i + 1), at + 8);
    area.writeUInt32LE(length(i), at + 16);
    area.writeUInt32LE(0xdeadbeef, at + 20);
  }
  return area;
}

const ABSURD_LENGTHS = [0xffff_ffff, MAX_PAYLOAD + 1, 0, 0x8000_0000];

function journalArea(disk: InstalledDisk, length: (i: number) => number): Patch[] {
  const j = partition(disk, "liken-journal");
  return [
    {
      at: j.start + JOURNAL_HEADER_SIZE,
      bytes: recordHeaders(j.size - JOURNAL_HEADER_SIZE, length),
    },
  ];
}

const LIKEN_CASES: readonly LikenCase[] = [
  {
    name: "liken-intact",
    implausible: false,
    verdict: "liken",
    reasons: ["liken-claim:complete"],
    problems: [],
    journalValid: true,
    patches: () => [],
  },
  {
    name: "liken-state-garbage",
    problems: ["state:unreadable"],
    journalValid: true,
    patches: (d) => [{ at: partition(d, "liken-state").start, bytes: noise("state", 4 * MIB) }],
  },
  {
    name: "liken-esp-garbage",
    problems: ["esp:unreadable"],
    journalValid: true,
    patches: (d) => [{ at: partition(d, "liken-esp").start, bytes: noise("esp", MIB) }],
  },
  {
    name: "liken-journal-header-garbage",
    problems: ["journal:invalid"],
    journalValid: false,
    patches: (d) => [
      { at: partition(d, "liken-journal").start, bytes: noise("journal", JOURNAL_HEADER_SIZE) },
    ],
  },
  {
    // The header verifies, but its records start past 4 GiB in a partition of 2^64 - 1 bytes.
    name: "liken-journal-header-absurd-fields",
    journalValid: true,
    patches: (d) => {
      const j = partition(d, "liken-journal");
      const h = journalHeader(d.installId, j.size);
      h.writeUInt32LE(0xffff_ffff, 12);
      h.writeBigUInt64LE(0xffff_ffff_ffff_ffffn, 32);
      h.writeUInt32LE(crc32(h.subarray(0, JOURNAL_HEADER_SIZE - 4)), JOURNAL_HEADER_SIZE - 4);
      return [{ at: j.start, bytes: h }];
    },
  },
  {
    name: "liken-journal-records-absurd-lengths",
    journalValid: true,
    patches: (d) => journalArea(d, (i) => ABSURD_LENGTHS[i % ABSURD_LENGTHS.length] as number),
  },
  {
    // A length a record may have, at every 512 bytes: a reader that checks each one's CRC
    // before it moves on reads the whole area once per record slot.
    name: "liken-journal-records-max-lengths",
    journalValid: true,
    patches: (d) => journalArea(d, () => MAX_PAYLOAD),
  },
  {
    name: "liken-gpt-entries-zeroed",
    implausible: true,
    // The primary is torn, the backup is the install's own: the claim still holds.
    verdict: "liken",
    problems: ["gpt:implausible:entry-array-crc", "gpt:backup-only"],
    journalValid: true,
    patches: () => [{ at: 2 * SECTOR, bytes: Buffer.alloc(ARRAY_BYTES) }],
  },
  {
    name: "liken-journal-past-disk-end",
    implausible: true,
    problems: ["gpt:implausible:entry-range"],
    journalValid: true,
    patches: (d) => {
      const j = partition(d, "liken-journal");
      const first = j.start / SECTOR;
      return gptPatches(
        changeEntries(d.gpt(), (a) => setEntry(a, j.number - 1, { first, last: first * 1000 })),
      );
    },
  },
];

async function write(path: string, patches: readonly Patch[]): Promise<void> {
  const handle = await open(path, "r+");
  try {
    for (const p of patches) await handle.write(p.bytes, 0, p.bytes.length, p.at);
  } finally {
    await handle.close();
  }
}

const BLANK_BASED: readonly TableCase[] = [...damagedTables, ...CLAIM_CASES];

/** Every disk of the corpus, in the order they are made. */
export const DAMAGED_DISKS: readonly DamagedDisk[] = [
  ...BLANK_BASED.map(
    (c): DamagedDisk => ({
      name: c.name,
      // Without a claim nothing else is right: the files are writable and large enough.
      verdict: "foreign",
      reasons: c.reasons ?? [],
      inspect: c.inspect ?? "refuses",
      ...(c.implausible === undefined ? {} : { implausible: c.implausible }),
      ...(c.problems ? { problems: c.problems } : {}),
    }),
  ),
  ...LIKEN_CASES.map(
    (c): DamagedDisk => ({
      name: c.name,
      reasons: c.reasons ?? [],
      inspect: "reads",
      journalValid: c.journalValid,
      ...(c.verdict ? { verdict: c.verdict } : {}),
      ...(c.implausible === undefined ? {} : { implausible: c.implausible }),
      ...(c.problems ? { problems: c.problems } : {}),
    }),
  ),
];

export function imagePath(corpus: DamagedCorpus, disk: DamagedDisk): string {
  return join(corpus.dir, `${disk.name}.img`);
}

/** Makes every damaged disk in `dir` (an install and about 40 sparse files, a few seconds). */
export async function makeDamagedDisks(dir: string): Promise<DamagedCorpus> {
  for (const c of BLANK_BASED)
    await write(await sparseFile(join(dir, `${c.name}.img`), c.size), c.patches(c.size));
  // The install's own files (its release, its status document) apart from the corpus.
  const installDir = join(dir, "install");
  await mkdir(installDir);
  const installed = await installedDisk(installDir);
  for (const c of LIKEN_CASES)
    await write(await copyOf(installed, join(dir, `${c.name}.img`)), c.patches(installed));
  const j = partition(installed, "liken-journal");
  return { dir, journal: { start: j.start, size: j.size } };
}
