// The corpus is only worth something if it is real: every disk that must not be called
// blank holds what its name says (wipefs sees the signature at the offset the expectation
// names, or blkid -p does where a zapped table's partition starts, or the bytes / mount /
// read-only flag / size are checked directly), and every disk that must be called blank
// has no signature and zeros everywhere the classifier reads.
import { constants, existsSync } from "node:fs";
import { mkdir, mkdtemp, open, readdir, readFile, rm, truncate, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { run } from "../../tools/exec.ts";
import { cli } from "../cli.ts";
import { contentDigest } from "../disk-files.ts";
import { makeTestRelease } from "../release-fixture.ts";
import {
  buildBlkidCorpus,
  EXTRA_BLKID_IMAGES_DIR,
  listBlkidImages,
  SHARED_BLKID_IMAGES_DIR,
} from "./blkid-corpus.ts";
import {
  acceptedVerdicts,
  blkidTypeAt,
  buildDiskCorpus,
  type CorpusCase,
  DISK_BYTES,
  type DiskCorpus,
  diskSize,
  hexOffset,
  loopsBackedBy,
  MIN_DISK_BYTES,
  MiB,
  mapLimit,
  md1Offset,
  md090Offset,
  nonzeroRegions,
  reasonMatches,
} from "./disk-corpus.ts";
import utilLinuxLock from "./util-linux.lock.json" with { type: "json" };
import { requireUtilLinuxBlkidImages } from "./util-linux-source.ts";

const root = process.getuid?.() === 0;

interface Signature {
  readonly device: string;
  readonly offset: string;
  readonly type: string;
  readonly usage: string;
}

/**
 * wipefs's signatures on each disk and, for a block device, on each of its partitions.
 * Files go to wipefs in batches (one process for many disks is much faster than one
 * each); wipefs names a device by its base name, so a batch's base names must differ.
 */
async function wipefsMany(paths: readonly string[]): Promise<Map<string, Signature[]>> {
  const out = new Map<string, Signature[]>(paths.map((p) => [p, []]));
  const targets: { disk: string; target: string }[] = [];
  for (const disk of paths) {
    targets.push({ disk, target: disk });
    for (const part of await partitionDevices(disk)) targets.push({ disk, target: part });
  }
  const batches: (typeof targets)[] = [];
  for (const t of targets) {
    const base = t.target.split("/").pop()!;
    let batch = batches.find(
      (b) => b.length < 50 && !b.some((x) => x.target.split("/").pop() === base),
    );
    if (!batch) {
      batch = [];
      batches.push(batch);
    }
    batch.push(t);
  }
  await mapLimit(batches, 2, async (batch) => {
    const args = ["--no-act", "--json", "--output", "DEVICE,OFFSET,TYPE,USAGE"];
    const { stdout } = await run("wipefs", [...args, ...batch.map((t) => t.target)]);
    if (stdout.trim() === "") return;
    for (const sig of (JSON.parse(stdout) as { signatures: Signature[] }).signatures ?? []) {
      const owner = batch.find((t) => t.target.split("/").pop() === sig.device);
      if (!owner) throw new Error(`wipefs named a device ${sig.device} it was not given`);
      // Reasons name a partition's signature at its offset on the disk, as `disks` does.
      const start = owner.target === owner.disk ? 0 : await partitionStart(owner.target);
      const offset = start === 0 ? sig.offset : hexOffset(Number.parseInt(sig.offset, 16) + start);
      out.get(owner.disk)!.push({ ...sig, offset });
    }
  });
  return out;
}

/** A partition's start on its disk in bytes (sysfs counts 512-byte units). */
async function partitionStart(device: string): Promise<number> {
  const name = device.slice("/dev/".length);
  return Number((await readFile(`/sys/class/block/${name}/start`, "utf8")).trim()) * 512;
}

/** /dev/loopNpM for each partition the kernel shows; none for an image file. */
async function partitionDevices(path: string): Promise<string[]> {
  if (!path.startsWith("/dev/")) return [];
  const name = path.slice("/dev/".length);
  const entries = await readdir(`/sys/class/block/${name}`);
  return entries.filter((e) => e.startsWith(`${name}p`)).map((e) => `/dev/${e}`);
}

/** The partitions sfdisk reads from the disk's table (image file or device). */
async function sfdiskPartitions(path: string): Promise<{ name?: string }[]> {
  const { stdout } = await run("sfdisk", ["--json", path], { okExitCodes: [1] });
  if (stdout.trim() === "") return [];
  return (
    (JSON.parse(stdout) as { partitiontable: { partitions?: { name?: string }[] } }).partitiontable
      .partitions ?? []
  );
}

/**
 * The partitions a backup GPT lists when nothing else is left of the table (no PMBR, no
 * primary GPT): sfdisk reads a GPT only behind a protective MBR, so it reads a scratch copy
 * of the disk's size that holds a PMBR and the disk's last 33 sectors. It then says the
 * primary table is corrupt and uses the backup. Image files only.
 */
async function backupGptPartitions(path: string): Promise<{ start: number; size: number }[]> {
  const size = await diskSize(path);
  const sectors = size / 512;
  const copy = join(dir!, `backup-gpt-${path.split("/").pop()}`);
  await writeFile(copy, "");
  await truncate(copy, size);
  try {
    await run("sfdisk", ["--quiet", "--no-reread", "--no-tell-kernel", copy], {
      input: `label: dos\nstart=1, size=${Math.min(sectors - 1, 0xffffffff)}, type=ee\n`,
    });
    const tail = Buffer.alloc(33 * 512);
    const src = await open(path, "r");
    try {
      await src.read(tail, 0, tail.length, size - tail.length);
    } finally {
      await src.close();
    }
    const dst = await open(copy, "r+");
    try {
      await dst.write(tail, 0, tail.length, size - tail.length);
    } finally {
      await dst.close();
    }
    const { stdout } = await run("sfdisk", ["--json", copy], { okExitCodes: [1] });
    if (stdout.trim() === "") return [];
    const table = (JSON.parse(stdout) as { partitiontable: { label: string; partitions?: [] } })
      .partitiontable;
    return table.label === "gpt" ? (table.partitions ?? []) : [];
  } finally {
    await rm(copy, { force: true });
  }
}

/** Mount points and their sources, from /proc/self/mountinfo. */
async function mounts(): Promise<{ target: string; source: string }[]> {
  const text = await readFile("/proc/self/mountinfo", "utf8");
  const unoctal = (s: string): string =>
    s.replace(/\\([0-7]{3})/g, (_, o: string) => String.fromCharCode(Number.parseInt(o, 8)));
  return text
    .split("\n")
    .filter((l) => l.trim() !== "")
    .map((l) => {
      const [before, after] = l.split(" - ");
      return { target: unoctal(before!.split(" ")[4]!), source: unoctal(after!.split(" ")[1]!) };
    });
}

async function openExclusiveRefused(path: string): Promise<string | undefined> {
  try {
    const fh = await open(path, constants.O_RDONLY | constants.O_EXCL);
    await fh.close();
    return undefined;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code;
  }
}

/** Every problem with one case, as sentences (empty when the case is real). */
async function problems(c: CorpusCase, sigs: readonly Signature[]): Promise<string[]> {
  const p: string[] = [];
  const found = await nonzeroRegions(c.path);
  const size = await diskSize(c.path);
  const verdicts = acceptedVerdicts(c);
  if (c.needsRoot !== c.path.startsWith("/dev/")) p.push("needsRoot does not match the path");
  if (verdicts.length === 0) p.push("accepts no verdict");

  if (verdicts.includes("blank")) {
    if (verdicts.length !== 1) p.push("blank must be the only verdict a blank case accepts");
    if (c.reasons.length > 0) p.push(`a blank case lists reasons ${c.reasons.join(", ")}`);
    if (sigs.length > 0)
      p.push(`blank, but wipefs finds ${sigs.map((s) => `${s.type}@${s.offset}`).join(", ")}`);
    if (found.head || found.middle || found.tail)
      p.push("blank, but a region the classifier reads is not zeros");
    if (size < MIN_DISK_BYTES) p.push("blank, but too small");
    return p;
  }

  // Not blank: wipefs sees it, or a signature reason (checked with wipefs or blkid below)
  // or one of the conditions that need no signature says why (each checked directly below).
  const sigless = ["nonzero-data:", "mounted:", "read-only", "too-small", "signature:"];
  if (sigs.length === 0 && !c.reasons.some((r) => sigless.some((s) => r.startsWith(s)))) {
    p.push("wipefs finds no signature and no reason says why it is not blank");
  }
  for (const region of ["head", "middle", "tail"] as const) {
    if (c.reasons.includes(`nonzero-data:${region}`) !== found[region])
      p.push(`nonzero-data:${region} is ${found[region]} on disk`);
  }
  if (!c.reasons.includes("too-small") && size < MIN_DISK_BYTES)
    p.push(`${size} bytes, but not too-small`);

  for (const r of c.reasons) {
    if (r.startsWith("partition-table:")) {
      const type = r.slice("partition-table:".length);
      if (!sigs.some((s) => s.type === type && s.usage === "partition-table")) {
        p.push(`${r}: wipefs finds no partition table of type ${type}`);
      }
    } else if (r.startsWith("signature:")) {
      const m = /^signature:(.+)@(.+)$/.exec(r);
      if (!m) {
        p.push(`${r}: not signature:<type>@<offset>`);
        continue;
      }
      const hit = sigs.some(
        (s) => s.usage !== "partition-table" && reasonMatches(r, `signature:${s.type}@${s.offset}`),
      );
      // Where a zapped table's partition starts, wipefs (which probes the disk's start and
      // the kernel's partitions) sees nothing: blkid -p at that offset must.
      const [type, at] = [m[1]!, m[2]!];
      const offset = /^0x[0-9a-f]+$/.test(at) ? Number.parseInt(at, 16) : undefined;
      const placed = c.placed?.start === offset ? c.placed : undefined;
      const probeSize = placed ? placed.end - placed.start : undefined;
      const probed =
        !hit && offset !== undefined ? await blkidTypeAt(c.path, offset, probeSize) : undefined;
      if (!hit && probed !== type)
        p.push(
          `${r}: wipefs finds ${sigs.map((s) => `${s.type}@${s.offset}`).join(", ") || "nothing"}` +
            (offset === undefined ? "" : `, blkid -p there finds ${probed ?? "nothing"}`),
        );
    } else if (r === "partitions") {
      const fromTable =
        (await sfdiskPartitions(c.path)).length ||
        (c.path.startsWith("/dev/") ? 0 : (await backupGptPartitions(c.path)).length);
      const fromKernel = (await partitionDevices(c.path)).length;
      if (fromTable === 0) p.push("partitions: sfdisk reads none, not even from a backup GPT");
      if (c.path.startsWith("/dev/") && fromKernel === 0)
        p.push("partitions: the kernel shows none");
    } else if (r === "liken-labels-without-claim") {
      const names = (await sfdiskPartitions(c.path)).map((x) => x.name ?? "");
      for (const want of ["liken-esp", "liken-a", "liken-b", "liken-journal", "liken-state"]) {
        if (!names.includes(want)) p.push(`liken-labels-without-claim: no partition named ${want}`);
      }
    } else if (r.startsWith("nonzero-data:")) {
      // checked above, both ways
    } else if (r === "too-small") {
      if (size >= MIN_DISK_BYTES) p.push(`too-small, but ${size} bytes`);
    } else if (r === "read-only") {
      const name = c.path.slice("/dev/".length);
      const ro = (await readFile(`/sys/class/block/${name}/ro`, "utf8").catch(() => "")).trim();
      if (ro !== "1") p.push(`read-only, but /sys/class/block/${name}/ro is ${JSON.stringify(ro)}`);
    } else if (r.startsWith("mounted:")) {
      const target = r.slice("mounted:".length);
      const ok = (await mounts()).some(
        (m) => m.target === target && m.source.startsWith(`${c.path}p`),
      );
      if (!ok) p.push(`${r}: no partition of ${c.path} is mounted there`);
    } else if (r === "busy") {
      const code = await openExclusiveRefused(c.path);
      if (code !== "EBUSY") p.push(`busy, but an O_EXCL open gives ${code ?? "success"}`);
    } else {
      p.push(`${r}: not a reason this test knows how to check`);
    }
  }
  return p;
}

const REQUIRED = [
  "blank-1g",
  "blank-512m",
  "too-small-16m",
  "dos-mbr",
  "gpt",
  "gpt-no-pmbr",
  "gpt-backup-only",
  "gpt-primary-header-zeroed",
  "pmbr-only",
  "ext4",
  "xfs",
  "btrfs",
  "vfat",
  "ntfs",
  "swap",
  "iso9660",
  "luks1",
  "luks2",
  "mdraid-0.90",
  "mdraid-1.0",
  "mdraid-1.2",
  "bcache-backing",
  "bcache-cache",
  "erofs",
  "nonzero-tail",
  "nonzero-head",
  "nonzero-middle",
  "random-data",
  "ext4-in-dos-partition",
  "liken-labels-imitation",
  "zapped-gpt-ext4",
  "zapped-gpt-xfs",
  "zapped-gpt-luks2",
  "zapped-gpt-ntfs",
  "zapped-gpt-vfat",
  "zapped-gpt-btrfs",
  "zapped-gpt-swap",
  "zapped-gpt-mdraid-1.2",
  "zapped-gpt-mdraid-1.0",
  "zapped-gpt-mdraid-0.90",
  "zapped-dos-ext4-sector-63",
  "zapped-gpt-ext4-at-2m",
  "zapped-gpt-empty-esp-ext4-at-257m",
  "gpt-backup-only-ext4-at-17m",
  ...(root
    ? [
        "lvm2-pv",
        "zapped-gpt-lvm2-pv",
        "loop-blank",
        "loop-read-only-blank",
        "loop-mounted-ext4-partition",
      ]
    : []),
];

/**
 * Disks the classifier is known to call blank although they hold data: product bugs,
 * reported, not yet fixed. Each must still be called wrongly, so that the fix fails this
 * test until its entry goes; every other disk must get its expected verdict.
 */
const KNOWN_MISSES: Readonly<Record<string, string>> = {
  "zapped-gpt-mdraid-1.0":
    "the superblock sits at the end of a partition no table names: blkid at 1 MiB looks at the end of the disk",
  "zapped-gpt-mdraid-0.90":
    "the superblock sits at the end of a partition no table names: blkid at 1 MiB looks at the end of the disk",
  "fs-ddf-raid-at1m":
    "DDF's anchor sits at the end of the member; its data at 34 and 50 MiB, past the head and between samples",
};

/**
 * `liken-stick disks --json` on many disks, in runs of DISKS_PER_RUN, two at a time (2
 * cores). One run over hundreds of disks is slower than the same disks in small runs: the
 * probe reads every disk at once, 17 MiB of buffers each.
 */
const DISKS_PER_RUN = 16;
async function disksJson(
  paths: readonly string[],
): Promise<{ path: string; verdict: string; reasons: string[] }[]> {
  const runs: string[][] = [];
  for (let i = 0; i < paths.length; i += DISKS_PER_RUN)
    runs.push(paths.slice(i, i + DISKS_PER_RUN));
  const outs = await mapLimit(runs, 2, async (some) => {
    const r = await cli(["disks", "--json", ...some]);
    expect(r.stderr).toBe("");
    expect(r.code).toBe(0);
    return JSON.parse(r.stdout) as { path: string; verdict: string; reasons: string[] }[];
  });
  return outs.flat();
}

/**
 * Which cases `disks` gets wrong: a verdict the case does not accept, or an expected reason
 * missing. Known misses are returned apart, each with what the classifier said.
 */
async function wrongVerdicts(cases: readonly CorpusCase[]): Promise<{
  wrong: string[];
  known: string[];
  disks: { path: string; verdict: string; reasons: string[] }[];
}> {
  const disks = await disksJson(cases.map((c) => c.path));
  expect(disks.length).toBe(cases.length);
  const wrong: string[] = [];
  const known: string[] = [];
  for (const c of cases) {
    const d = disks.find((x) => x.path === c.path)!;
    const said = `${d.verdict} (${d.reasons.join(", ") || "no reasons"})`;
    const faults = [
      ...(acceptedVerdicts(c).includes(d.verdict as never) ? [] : [said]),
      ...c.reasons
        .filter((want) => !d.reasons.some((got) => reasonMatches(want, got)))
        .map((want) => `no ${want} in ${said}`),
    ];
    if (c.name in KNOWN_MISSES) {
      if (faults.length === 0)
        wrong.push(`${c.name}: now right, remove it from KNOWN_MISSES (${said})`);
      else known.push(`${c.name}: ${said}`);
    } else wrong.push(...faults.map((f) => `${c.name}: ${f}`));
  }
  if (known.length > 0) console.info(`known misses, still missed: ${known.join("; ")}`);
  return { wrong, known, disks };
}

// The corpus has three parts, built side by side in the file's beforeAll and asserted apart:
// a part that cannot be built fails its own tests only, with a line that says why.
// (a) the project's own built cases (disk-corpus.ts): never touched by the others;
// (b) util-linux 2.38.1's blkid images, from Debian 12's source package (pinned in
//     util-linux.lock.json, fetched into the liken cache on first use): always;
// (c) a newer util-linux's blkid images, ../shared/corpus/util-linux-blkid (or
//     $LIKEN_EXTRA_BLKID_CORPUS), in addition when that folder exists: skipped, with the
//     reason logged, when it does not.
type Built<T> = { ok: true; value: T } | { ok: false; error: unknown };

const extraDefault = EXTRA_BLKID_IMAGES_DIR === SHARED_BLKID_IMAGES_DIR;
const extraPresent = existsSync(EXTRA_BLKID_IMAGES_DIR);
const extraMissing = `${EXTRA_BLKID_IMAGES_DIR} does not exist (it is optional: set LIKEN_EXTRA_BLKID_CORPUS to a folder of images-fs/ and images-pt/ to use another)`;

let dir: string | undefined;
let building: Promise<readonly [Built<DiskCorpus>, ...unknown[]]> | undefined;
let diskPart: Built<DiskCorpus> | undefined;
let debianPart: Built<CorpusCase[]> | undefined;
let extraPart: Built<CorpusCase[]> | undefined;

/** The value of a part, or its build error with the part named (fails that part's tests only). */
function take<T>(part: Built<T> | undefined, what: string): T {
  if (part === undefined) throw new Error(`${what} was not built (the file's beforeAll failed)`);
  if (part.ok) return part.value;
  const why = part.error instanceof Error ? part.error.message : String(part.error);
  throw new Error(`${what} could not be built: ${why}`, { cause: part.error });
}

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "liken-corpus-"));
  const scratch = dir;
  const times: Record<string, number> = {};
  const build = async <T>(label: string, f: () => Promise<T>): Promise<Built<T>> => {
    const t0 = performance.now();
    try {
      return { ok: true, value: await f() };
    } catch (error) {
      return { ok: false, error };
    } finally {
      times[label] = Math.round(performance.now() - t0);
    }
  };
  const all = Promise.all([
    build("disk corpus", () => buildDiskCorpus(join(scratch, "disk"), { loopDevices: root })),
    build("util-linux 2.38.1 images (fetch + build)", async () =>
      buildBlkidCorpus(await requireUtilLinuxBlkidImages(), join(scratch, "debian")),
    ),
    extraPresent
      ? build("extra blkid images", () =>
          buildBlkidCorpus(EXTRA_BLKID_IMAGES_DIR, join(scratch, "extra")),
        )
      : undefined,
  ]);
  building = all;
  [diskPart, debianPart, extraPart] = await all;
  console.info(`corpus build times (ms, built side by side): ${JSON.stringify(times)}`);
}, 600_000);

// Every build has ended before anything is removed (a build still writing into the
// scratch folder made rm fail with ENOTEMPTY), and the built disks are detached first,
// also when the beforeAll timed out before it could keep them.
afterAll(async () => {
  const [disk] = (await building) ?? [];
  try {
    if (disk?.ok) await disk.value.cleanup();
  } finally {
    if (dir) await rm(dir, { recursive: true, force: true, maxRetries: 3 });
  }
}, 60_000);

describe("disk corpus: the project's own built cases", () => {
  // Each test takes the corpus itself: a build that failed fails every test with its error.
  const corpus = (): DiskCorpus => take(diskPart, "the disk corpus (test/corpus/disk-corpus.ts)");

  afterAll(async () => {
    if (diskPart?.ok) await diskPart.value.cleanup();
    if (root && dir) expect(await loopsBackedBy(dir)).toEqual([]);
  }, 60_000);

  it("has every required case, with unique names", () => {
    const names = corpus().cases.map((c) => c.name);
    expect(new Set(names).size).toBe(names.length);
    expect(names.length).toBeGreaterThanOrEqual(25);
    for (const n of REQUIRED) expect(names, n).toContain(n);
  });

  it("every case is what its expectation says (checked with wipefs, sfdisk, sysfs, the bytes)", async () => {
    const sigs = await wipefsMany(corpus().cases.map((c) => c.path));
    const results = await mapLimit(corpus().cases, 4, async (c) => ({
      c,
      p: await problems(c, sigs.get(c.path)!),
    }));
    const bad = results.filter((r) => r.p.length > 0).map((r) => `${r.c.name}: ${r.p.join("; ")}`);
    expect(bad).toEqual([]);
  }, 120_000);

  it("the checks bite: a wrong offset, a wrong type, a wrong end, a false blank are caught", async () => {
    const ext4 = corpus().cases.find((c) => c.name === "ext4")!;
    const sigs = (await wipefsMany([ext4.path])).get(ext4.path)!;
    const wrong = async (change: Partial<CorpusCase>): Promise<string[]> =>
      problems({ ...ext4, ...change }, sigs);
    expect(await wrong({})).toEqual([]);
    expect(await wrong({ reasons: [...ext4.reasons, "signature:ext4@0x439"] })).not.toEqual([]);
    expect(await wrong({ reasons: [...ext4.reasons, "signature:xfs@*"] })).not.toEqual([]);
    expect(await wrong({ reasons: [...ext4.reasons, "partition-table:gpt"] })).not.toEqual([]);
    expect(await wrong({ reasons: [...ext4.reasons, "nonzero-data:tail"] })).not.toEqual([]);
    expect(await wrong({ reasons: ["signature:ext4@0x438"] })).not.toEqual([]); // head left out
    expect(await wrong({ expect: "blank", reasons: [] })).not.toEqual([]);
    expect(await wrong({ reasons: [...ext4.reasons, "partitions"] })).not.toEqual([]);
    expect(await wrong({ reasons: [...ext4.reasons, "holder:dm-0"] })).not.toEqual([]);
    expect(await wrong({ reasons: [...ext4.reasons, "nonzero-data:middle"] })).not.toEqual([]);
    // Where wipefs sees nothing, blkid -p must confirm the type at that very offset.
    const zapped = corpus().cases.find((c) => c.name === "zapped-gpt-ext4")!;
    const zappedSigs = (await wipefsMany([zapped.path])).get(zapped.path)!;
    expect(zappedSigs).toEqual([]);
    const wrongZapped = async (reasons: string[]): Promise<string[]> =>
      problems({ ...zapped, reasons: [...zapped.reasons, ...reasons] }, zappedSigs);
    expect(await wrongZapped([])).toEqual([]);
    expect(await wrongZapped(["signature:xfs@0x100000"])).not.toEqual([]);
    expect(await wrongZapped(["signature:ext4@0x200000"])).not.toEqual([]);
    expect(await wrongZapped(["signature:ext4@*"])).not.toEqual([]);
    expect(await wrongZapped(["partitions"])).not.toEqual([]);
  });

  it.skipIf(!root)(
    "a build that fails halfway leaves no loop device and no mount behind",
    async () => {
      const failDir = join(dir!, "fail");
      // A file where the mount point must go: the mounted case fails after its loop device
      // (and the blank and read-only ones before it) are attached.
      await mkdir(join(failDir, "mnt"), { recursive: true });
      await writeFile(join(failDir, "mnt", "loop-mounted-ext4-partition"), "in the way\n");
      await expect(buildDiskCorpus(failDir, { loopDevices: true })).rejects.toThrow(/EEXIST/);
      expect(await loopsBackedBy(failDir)).toEqual([]);
      expect((await mounts()).filter((m) => m.target.startsWith(failDir))).toEqual([]);
    },
    120_000,
  );

  it("the md superblocks are real: blkid -p names the version, mdadm --examine finds the checksum correct", async () => {
    const versions: Record<string, string> = {
      "mdraid-0.90": "0.90.0",
      "mdraid-1.0": "1.0",
      "mdraid-1.1": "1.1",
      "mdraid-1.2": "1.2",
    };
    for (const [name, version] of Object.entries(versions)) {
      const c = corpus().cases.find((x) => x.name === name)!;
      const { stdout } = await run("blkid", ["-p", "-o", "export", c.path]);
      expect(stdout, name).toContain("TYPE=linux_raid_member\n");
      expect(stdout, name).toContain(`VERSION=${version}\n`);
      const examine = await run("mdadm", ["--examine", c.path]);
      expect(examine.stdout, name).toMatch(/Checksum : [0-9a-f]+ - correct/);
      expect(examine.stdout, name).toMatch(/Raid Level : raid1/);
    }
    expect(md090Offset(DISK_BYTES)).toBe(0x257f0000);
    expect(hexOffset(md1Offset(0, DISK_BYTES))).toBe("0x257fe000");
  });

  it("the ext4 inside a partition is there, at 1 MiB", async () => {
    for (const name of ["ext4-in-dos-partition", "ext4-in-gpt-partition"]) {
      const c = corpus().cases.find((x) => x.name === name)!;
      const { stdout } = await run("blkid", ["-p", "-o", "export", "--offset", "1048576", c.path]);
      expect(stdout, name).toContain("TYPE=ext4\n");
    }
  });

  it("the zapped tables are gone, and what their partitions held is still there", async () => {
    const zapped = corpus().cases.filter((c) => /^zapped-/.test(c.name));
    expect(zapped.length).toBe(root ? 16 : 15);
    for (const c of zapped) {
      // sfdisk finds no table (and so no partition) on any of them.
      expect(await sfdiskPartitions(c.path), c.name).toEqual([]);
    }
    // The backup GPT alone names the partition at 17 MiB, and the ext4 there holds its files.
    const backup = corpus().cases.find((c) => c.name === "gpt-backup-only-ext4-at-17m")!;
    expect(await sfdiskPartitions(backup.path)).toEqual([]);
    expect(await backupGptPartitions(backup.path)).toMatchObject([
      { start: (17 * MiB) / 512, size: (256 * MiB) / 512 },
    ]);
    for (const [name, offset] of [
      ["zapped-gpt-ext4", MiB],
      ["zapped-dos-ext4-sector-63", 63 * 512],
      ["zapped-gpt-ext4-at-2m", 2 * MiB],
      ["zapped-gpt-empty-esp-ext4-at-257m", 257 * MiB],
      ["gpt-backup-only-ext4-at-17m", 17 * MiB],
    ] as const) {
      const c = corpus().cases.find((x) => x.name === name)!;
      const ls = await run("debugfs", ["-R", "ls -l /home/user", `${c.path}?offset=${offset}`]);
      expect(ls.stdout, name).toMatch(/notes\.txt/);
      expect(ls.stdout, name).toMatch(/ 262144 .*photo\.raw/);
    }
  });

  // The installer itself refuses them: the classifier's verdict is what keeps it off, and
  // neither install nor wipe and reinstall writes a byte.
  it("install and wipe and reinstall refuse a zapped ext4, LUKS2 and LVM disk and a random one, writing nothing", async () => {
    const names = [
      "zapped-gpt-ext4",
      "zapped-gpt-luks2",
      ...(root ? ["zapped-gpt-lvm2-pv"] : []),
      "random-data",
    ];
    const release = await makeTestRelease(join(dir!, "release"), { version: "1.0.0" });
    for (const name of names) {
      const c = corpus().cases.find((x) => x.name === name)!;
      const before = await contentDigest(c.path);
      for (const wipe of [[], ["--wipe"]]) {
        const status = join(dir!, `status-${name}.json`);
        const r = await cli([
          "install",
          ...wipe,
          ...["--manifest", "test/fixtures/manifests/good/small.toml", "--as", "leader-1"],
          ...["--release", release, "--status-file", status, c.path],
        ]);
        const what = `${name} ${wipe.join(" ")}`;
        expect(r.code, what).toBe(1);
        expect(r.stderr, what).toMatch(
          wipe.length === 0
            ? /no blank disk: every disk holds data or cannot be a target/
            : /--wipe refuses disks holding data liken did not write/,
        );
        expect(r.stderr, what).toContain(c.reasons[0]);
        expect(JSON.parse(await readFile(status, "utf8")), what).toMatchObject({ phase: "Failed" });
      }
      // Once for both runs: reading a disk whole is most of this test's time.
      expect(await contentDigest(c.path), `${name}: install or wipe changed it`).toBe(before);
    }
  }, 120_000);

  // The classifier itself, run as an operator runs it: the bundled command on every disk.
  it("liken-stick disks gives every corpus disk its expected verdict and reasons", async () => {
    const { wrong } = await wrongVerdicts(corpus().cases);
    expect(wrong).toEqual([]);
  }, 120_000);
});

/**
 * The tests of one set of util-linux blkid images: every image, as it is and at both ends
 * of a disk, is what its case says and never blank, to wipefs and to `liken-stick disks`.
 * `skip` is the reason to skip them (the set's folder is missing), logged once; a set that
 * could not be built fails each test with its build error.
 */
function blkidImageTests(set: {
  readonly label: string;
  readonly images: () => Promise<string>;
  readonly count: number | undefined;
  readonly cases: () => CorpusCase[];
  readonly skip?: string;
}): void {
  beforeAll(() => {
    if (set.skip !== undefined) console.info(`${set.label}: skipped: ${set.skip}`);
  });

  it("every util-linux image, as it is, at 1 MiB and at both ends of a disk, is what its case says", async (ctx) => {
    ctx.skip(set.skip !== undefined, set.skip);
    const cases = set.cases(); // a set that could not be built fails here, saying why
    const imagesDir = await set.images();
    const images = await listBlkidImages(imagesDir);
    if (set.count !== undefined) expect(images.length, imagesDir).toBe(set.count);
    expect(images.length, imagesDir).toBeGreaterThan(0);
    const raw = cases.filter((c) => c.name.endsWith("-raw"));
    expect(raw.length).toBe(images.length);
    // Every image is placed at 1 MiB, where a zapped table's first partition starts.
    const at1m = cases.filter((c) => c.name.endsWith("-at1m"));
    expect(at1m.length).toBe(images.length);
    const sigs = await wipefsMany(cases.map((c) => c.path));
    const results = await mapLimit(cases, 4, async (c) => ({
      c,
      p: await problems(c, sigs.get(c.path)!),
      sigs: sigs.get(c.path)!,
    }));
    const bad = results.filter((r) => r.p.length > 0).map((r) => `${r.c.name}: ${r.p.join("; ")}`);
    expect(bad).toEqual([]);
    for (const c of cases) expect(acceptedVerdicts(c), c.name).not.toContain("blank");
    // At 1 MiB wipefs never sees an image (it probes the disk's start): those are left out.
    const unseen = results
      .filter((r) => r.sigs.length === 0 && !r.c.name.endsWith("-at1m"))
      .map((r) => r.c.name);
    console.info(
      `${set.label}: ${cases.length} disks (${raw.length} raw, ` +
        `${cases.filter((c) => c.name.endsWith("-head")).length} head, ${at1m.length} at 1 MiB, ` +
        `${cases.filter((c) => c.name.endsWith("-tail")).length} tail); ` +
        `wipefs sees no signature on ${unseen.length}: ${unseen.join(" ")}`,
    );
  }, 600_000);

  it("liken-stick disks never calls a util-linux blkid image blank, as it is, at 1 MiB or at either end of a disk", async (ctx) => {
    ctx.skip(set.skip !== undefined, set.skip);
    const cases = set.cases(); // a set that could not be built fails here, saying why
    const { wrong, disks } = await wrongVerdicts(cases);
    expect(wrong).toEqual([]);
    const blank = disks.filter((d) => d.verdict === "blank").map((d) => d.path);
    const knownBlank = cases.filter((c) => c.name in KNOWN_MISSES).map((c) => c.path);
    expect(blank.sort()).toEqual(knownBlank.sort());
  }, 600_000);
}

describe("blkid corpus: util-linux 2.38.1's images, from Debian 12's source package", () => {
  blkidImageTests({
    label: "util-linux 2.38.1 blkid corpus",
    images: () => requireUtilLinuxBlkidImages(),
    count: utilLinuxLock.images,
    cases: () =>
      take(
        debianPart,
        "the util-linux 2.38.1 blkid images from Debian's source package (test/corpus/util-linux-source.ts)",
      ),
  });
});

describe(`blkid corpus: newer util-linux images (${extraDefault ? "../shared/corpus/util-linux-blkid" : "$LIKEN_EXTRA_BLKID_CORPUS"})`, () => {
  blkidImageTests({
    label: "newer blkid corpus",
    images: async () => EXTRA_BLKID_IMAGES_DIR,
    // ../shared/corpus/README.md: 129 file-system images and 9 partition tables
    count: extraDefault ? 138 : undefined,
    cases: () => take(extraPart, `the blkid images of ${EXTRA_BLKID_IMAGES_DIR}`),
    ...(extraPresent ? {} : { skip: extraMissing }),
  });
});
