// The damaged-disk corpus's partition tables (test/corpus/damaged-disks.ts): GPTs whose
// headers and entries name what cannot be on the disk, every CRC right; MBRs whose chain of
// extended boot records loops or leaves its extended partition; and the sane tables beside
// them that a judge of tables must not call implausible.
import { GIB, MIB } from "../../common/size.ts";
import {
  changeEntries,
  changeHeader,
  EXTENDED,
  type Gpt,
  gptPatches,
  LINUX_MBR,
  type MbrEntry,
  mbrSector,
  noise,
  type Part,
  type Patch,
  SECTOR,
  setEntry,
  THREE_PARTS,
  validGpt,
  type Which,
} from "./damaged-tables.ts";

/** A damaged disk made from a blank one (see DamagedDisk in damaged-disks.ts for the fields). */
export interface TableCase {
  readonly name: string;
  readonly size: number;
  readonly implausible?: boolean;
  readonly reasons?: readonly string[];
  readonly inspect?: "reads";
  readonly problems?: readonly string[];
  readonly patches: (size: number) => Patch[];
}

/** The entry count of issue 46: its array is 1.6 GB, which libblkid read and checksummed for 56 s. */
const HUGE_COUNT = 12_976_256;
const lbas = (size: number) => size / SECTOR;

/** A valid GPT with `change` made to the named headers, CRCs computed again. */
function header(which: Which, change: (h: Buffer, size: number) => void) {
  return (size: number) => gptPatches(changeHeader(validGpt(size), which, (h) => change(h, size)));
}

/** A valid GPT with `change` made to both entry arrays, CRCs computed again. */
function entries(change: (array: Buffer, size: number) => void, base?: (size: number) => Gpt) {
  return (size: number) =>
    gptPatches(changeEntries(base ? base(size) : validGpt(size), (a) => change(a, size)));
}

const u32 = (at: number, value: number) => (h: Buffer) => h.writeUInt32LE(value, at);
const u64 = (at: number, value: (size: number) => number) => (h: Buffer, size: number) =>
  h.writeBigUInt64LE(BigInt(value(size)), at);
const FIRST_USABLE = 40;
const LAST_USABLE = 48;
const MY_LBA = 24;
const ALTERNATE_LBA = 32;
const ENTRIES_LBA = 72;
const COUNT = 80;
const ENTRY_SIZE = 84;
const HEADER_SIZE = 12;
const ARRAY_CRC = 88;

/** 128 partitions of 8 MiB, each with bytes at its start: blkid has 128 starts to look at. */
const PACKED: readonly Part[] = Array.from({ length: 128 }, (_, i) => ({
  first: (1 + 8 * i) * (MIB / SECTOR),
  last: (1 + 8 * (i + 1)) * (MIB / SECTOR) - 1,
}));

const GPT_CASES: readonly TableCase[] = [
  {
    name: "gpt-intact",
    size: 2 * GIB,
    implausible: false,
    reasons: ["partition-table:gpt"],
    patches: (size) => gptPatches(validGpt(size)),
  },
  {
    name: "gpt-no-entries",
    size: 2 * GIB,
    implausible: false,
    reasons: ["partition-table:gpt"],
    patches: (size) => gptPatches(validGpt(size, [])),
  },
  ...(["primary", "backup", "both"] as const).map((which) => ({
    name: `gpt-${which}-12976256-entries`,
    size: 4 * GIB,
    implausible: true,
    patches: header(which, u32(COUNT, HUGE_COUNT)),
  })),
  {
    // A zapped primary sends a reader to the backup, whose entries start at LBA 2: the
    // whole 1.6 GB array lies inside the disk.
    name: "gpt-primary-zapped-backup-12976256-entries-from-lba-2",
    size: 4 * GIB,
    implausible: true,
    patches: (size) => {
      const gpt = changeHeader(validGpt(size), "backup", (h) => {
        h.writeUInt32LE(HUGE_COUNT, COUNT);
        h.writeBigUInt64LE(2n, ENTRIES_LBA);
      });
      gpt.head.fill(0, SECTOR);
      return gptPatches(gpt);
    },
  },
  ...[129, 0, 2 ** 31].map((bytes) => ({
    name: `gpt-entry-size-${bytes}`,
    size: 2 * GIB,
    implausible: true,
    patches: header("primary", u32(ENTRY_SIZE, bytes)),
  })),
  {
    name: "gpt-entries-lba-past-disk-end",
    size: 8 * GIB,
    implausible: true,
    patches: header(
      "primary",
      u64(ENTRIES_LBA, (size) => lbas(size) + 1000),
    ),
  },
  {
    // The array moved into the first partition, and is there: its CRC verifies.
    name: "gpt-entries-lba-in-usable-area",
    size: 2 * GIB,
    implausible: true,
    patches: (size) => {
      const lba = (THREE_PARTS[0] as Part).first + 100;
      const gpt = changeHeader(validGpt(size), "primary", (h) =>
        h.writeBigUInt64LE(BigInt(lba), ENTRIES_LBA),
      );
      return [...gptPatches(gpt), { at: lba * SECTOR, bytes: gpt.head.subarray(2 * SECTOR) }];
    },
  },
  ...[0, 93, 4097].map((bytes) => ({
    name: `gpt-header-size-${bytes}`,
    size: 2 * GIB,
    // 93 is within what UEFI allows (92 up to the sector's size): unusual, not implausible.
    implausible: bytes !== 93,
    patches: header("primary", u32(HEADER_SIZE, bytes)),
  })),
  {
    name: "gpt-first-usable-after-last-usable",
    size: 2 * GIB,
    implausible: true,
    patches: header("primary", (h) => {
      const first = h.readBigUInt64LE(FIRST_USABLE);
      h.writeBigUInt64LE(h.readBigUInt64LE(LAST_USABLE), FIRST_USABLE);
      h.writeBigUInt64LE(first, LAST_USABLE);
    }),
  },
  {
    name: "gpt-last-usable-past-disk-end",
    size: GIB,
    implausible: true,
    patches: header(
      "both",
      u64(LAST_USABLE, (size) => lbas(size) * 4),
    ),
  },
  {
    name: "gpt-my-lba-wrong",
    size: 2 * GIB,
    implausible: true,
    patches: header(
      "primary",
      u64(MY_LBA, () => 7),
    ),
  },
  {
    // Either is right: a primary that verifies need not send a reader to its backup.
    name: "gpt-alternate-lba-past-disk-end",
    size: 2 * GIB,
    patches: header(
      "primary",
      u64(ALTERNATE_LBA, (size) => lbas(size) + 5),
    ),
  },
  {
    name: "gpt-array-crc-wrong",
    size: 2 * GIB,
    implausible: true,
    patches: header("primary", (h) =>
      h.writeUInt32LE((h.readUInt32LE(ARRAY_CRC) ^ 1) >>> 0, ARRAY_CRC),
    ),
  },
  {
    name: "gpt-entry-first-after-last",
    size: 2 * GIB,
    implausible: true,
    patches: entries((a) => {
      const p = THREE_PARTS[1] as Part;
      setEntry(a, 1, { first: p.last, last: p.first });
    }),
  },
  {
    name: "gpt-entry-past-disk-end",
    size: GIB,
    implausible: true,
    patches: entries((a, size) => {
      setEntry(a, 2, { first: (THREE_PARTS[2] as Part).first, last: lbas(size) * 8 });
    }),
  },
  {
    name: "gpt-entry-over-the-gpt",
    size: 2 * GIB,
    implausible: true,
    patches: entries((a) => setEntry(a, 0, { first: 1, last: 2047 })),
  },
  {
    name: "gpt-entries-overlap",
    size: 2 * GIB,
    implausible: true,
    patches: entries((a) => {
      const p = THREE_PARTS[0] as Part;
      setEntry(a, 1, { first: p.first + 1000, last: p.last + 1000 });
    }),
  },
  {
    name: "gpt-128-entries-each-a-start",
    size: 2 * GIB,
    implausible: false,
    patches: (size) => [
      ...gptPatches(validGpt(size, PACKED)),
      ...PACKED.map((p, i) => ({ at: p.first * SECTOR, bytes: noise(`part-${i}`, SECTOR) })),
    ],
  },
];

/** An MBR whose first entry is an extended partition of 1 GiB at 1 MiB, and the EBRs in it. */
const EXT_START = 2048;
const EXT_SECTORS = GIB / SECTOR;

function extended(ebrs: readonly { at: number; entries: readonly MbrEntry[] }[]): () => Patch[] {
  return () => [
    { at: 0, bytes: mbrSector([{ type: EXTENDED, start: EXT_START, sectors: EXT_SECTORS }]) },
    ...ebrs.map((e) => ({ at: (EXT_START + e.at) * SECTOR, bytes: mbrSector(e.entries) })),
  ];
}

// In an EBR the logical partition's start counts from that EBR, the next EBR's from the
// extended partition's start.
const logical = (sectors: number): MbrEntry => ({ type: LINUX_MBR, start: 2048, sectors });
const next = (at: number, sectors = 4096): MbrEntry => ({ type: EXTENDED, start: at, sectors });
const SECOND_EBR = 206_848;

const MBR_CASES: readonly TableCase[] = [
  {
    name: "mbr-ebr-points-to-itself",
    size: 2 * GIB,
    implausible: true,
    patches: extended([{ at: 0, entries: [logical(204_800), next(0)] }]),
  },
  {
    name: "mbr-ebrs-point-to-each-other",
    size: 2 * GIB,
    implausible: true,
    patches: extended([
      { at: 0, entries: [logical(204_800), next(SECOND_EBR)] },
      { at: SECOND_EBR, entries: [logical(100_000), next(0)] },
    ]),
  },
  {
    name: "mbr-ebr-outside-extended",
    size: 2 * GIB,
    implausible: true,
    patches: extended([
      { at: 0, entries: [logical(204_800), next(EXT_SECTORS + SECOND_EBR)] },
      { at: EXT_SECTORS + SECOND_EBR, entries: [logical(1000)] },
    ]),
  },
  {
    // Well formed but long: 300 logical partitions of 1 MiB, more than Linux reads.
    name: "mbr-ebr-chain-of-300",
    size: 2 * GIB,
    implausible: true,
    patches: extended(
      Array.from({ length: 300 }, (_, i) => ({
        at: i * 4096,
        entries: i < 299 ? [logical(2048), next((i + 1) * 4096)] : [logical(2048)],
      })),
    ),
  },
  {
    // Either is right: a table made for a larger disk says this too.
    name: "mbr-four-primaries-past-disk-end",
    size: GIB,
    patches: (size) => [
      {
        at: 0,
        bytes: mbrSector(
          [0, 1, 2, 3].map((i) => ({
            type: LINUX_MBR,
            start: lbas(size) + i * 1_000_000,
            sectors: 100_000,
          })),
        ),
      },
    ],
  },
  {
    // A GPT whose MBR also lists its first partition (Boot Camp's hybrid): real, not damage.
    name: "mbr-hybrid-with-gpt",
    size: 2 * GIB,
    implausible: false,
    patches: (size) => {
      const p = THREE_PARTS[0] as Part;
      const hybrid = mbrSector([
        { type: LINUX_MBR, start: p.first, sectors: p.last - p.first + 1 },
        { type: 0xee, start: 1, sectors: p.first - 1 },
      ]);
      return [...gptPatches(validGpt(size)), { at: 0, bytes: hybrid }];
    },
  },
];

export const damagedTables: readonly TableCase[] = [...GPT_CASES, ...MBR_CASES];
