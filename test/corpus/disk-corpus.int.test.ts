// The corpus is only worth something if it is real: every disk that must not be called
// blank holds what its name says (wipefs sees the signature at the offset the expectation
// names, or the bytes / mount / read-only flag / size are checked directly), and every
// disk that must be called blank has no signature and zeros at both ends.
import { constants, existsSync } from "node:fs";
import { mkdir, mkdtemp, open, readdir, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { run } from "../../tools/exec.ts";
import { cli } from "../cli.ts";
import {
  buildBlkidCorpus,
  EXTRA_BLKID_IMAGES_DIR,
  listBlkidImages,
  SHARED_BLKID_IMAGES_DIR,
} from "./blkid-corpus.ts";
import {
  acceptedVerdicts,
  buildDiskCorpus,
  type CorpusCase,
  DISK_BYTES,
  type DiskCorpus,
  diskSize,
  hexOffset,
  loopsBackedBy,
  MIN_DISK_BYTES,
  mapLimit,
  md1Offset,
  md090Offset,
  nonzeroEnds,
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
  const ends = await nonzeroEnds(c.path);
  const size = await diskSize(c.path);
  const verdicts = acceptedVerdicts(c);
  if (c.needsRoot !== c.path.startsWith("/dev/")) p.push("needsRoot does not match the path");
  if (verdicts.length === 0) p.push("accepts no verdict");

  if (verdicts.includes("blank")) {
    if (verdicts.length !== 1) p.push("blank must be the only verdict a blank case accepts");
    if (c.reasons.length > 0) p.push(`a blank case lists reasons ${c.reasons.join(", ")}`);
    if (sigs.length > 0)
      p.push(`blank, but wipefs finds ${sigs.map((s) => `${s.type}@${s.offset}`).join(", ")}`);
    if (ends.head || ends.tail) p.push("blank, but its first or last MiB is not zeros");
    if (size < MIN_DISK_BYTES) p.push("blank, but too small");
    return p;
  }

  // Not blank: wipefs sees it, or one of the conditions that need no signature holds
  // (each of those is checked directly below).
  const sigless = ["nonzero-data:", "mounted:", "read-only", "too-small"];
  if (sigs.length === 0 && !c.reasons.some((r) => sigless.some((s) => r.startsWith(s)))) {
    p.push("wipefs finds no signature and no reason says why it is not blank");
  }
  if (c.reasons.includes("nonzero-data:head") !== ends.head)
    p.push(`nonzero-data:head is ${ends.head} on disk`);
  if (c.reasons.includes("nonzero-data:tail") !== ends.tail)
    p.push(`nonzero-data:tail is ${ends.tail} on disk`);
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
      if (!hit)
        p.push(
          `${r}: wipefs finds ${sigs.map((s) => `${s.type}@${s.offset}`).join(", ") || "nothing"}`,
        );
    } else if (r === "partitions") {
      const fromTable = (await sfdiskPartitions(c.path)).length;
      const fromKernel = (await partitionDevices(c.path)).length;
      if (fromTable === 0) p.push("partitions: sfdisk reads none");
      if (c.path.startsWith("/dev/") && fromKernel === 0)
        p.push("partitions: the kernel shows none");
    } else if (r === "liken-labels-without-claim") {
      const names = (await sfdiskPartitions(c.path)).map((x) => x.name ?? "");
      for (const want of ["liken-esp", "liken-a", "liken-b", "liken-journal", "liken-state"]) {
        if (!names.includes(want)) p.push(`liken-labels-without-claim: no partition named ${want}`);
      }
    } else if (r === "nonzero-data:head" || r === "nonzero-data:tail") {
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
  "ext4-in-dos-partition",
  "liken-labels-imitation",
  ...(root ? ["lvm2-pv", "loop-blank", "loop-read-only-blank", "loop-mounted-ext4-partition"] : []),
];

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

  // The classifier itself, run as an operator runs it: the bundled command on every disk.
  it("liken-stick disks gives every corpus disk its expected verdict and reasons", async () => {
    const cases = corpus().cases;
    const r = await cli(["disks", "--json", ...cases.map((c) => c.path)]);
    expect(r.stderr).toBe("");
    const disks = JSON.parse(r.stdout) as { path: string; verdict: string; reasons: string[] }[];
    const wrong: string[] = [];
    for (const c of cases) {
      const d = disks.find((x) => x.path === c.path)!;
      if (!acceptedVerdicts(c).includes(d.verdict as never))
        wrong.push(`${c.name}: ${d.verdict} (${d.reasons.join(", ")})`);
      for (const want of c.reasons) {
        if (!d.reasons.some((got) => reasonMatches(want, got)))
          wrong.push(`${c.name}: no ${want} in ${d.reasons.join(", ")}`);
      }
    }
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

  it("every util-linux image, as it is and at both ends of a disk, is never blank", async (ctx) => {
    ctx.skip(set.skip !== undefined, set.skip);
    const cases = set.cases(); // a set that could not be built fails here, saying why
    const imagesDir = await set.images();
    const images = await listBlkidImages(imagesDir);
    if (set.count !== undefined) expect(images.length, imagesDir).toBe(set.count);
    expect(images.length, imagesDir).toBeGreaterThan(0);
    const raw = cases.filter((c) => c.name.endsWith("-raw"));
    expect(raw.length).toBe(images.length);
    const sigs = await wipefsMany(cases.map((c) => c.path));
    const results = await mapLimit(cases, 4, async (c) => ({
      c,
      p: await problems(c, sigs.get(c.path)!),
      sigs: sigs.get(c.path)!,
    }));
    const bad = results.filter((r) => r.p.length > 0).map((r) => `${r.c.name}: ${r.p.join("; ")}`);
    expect(bad).toEqual([]);
    for (const c of cases) expect(acceptedVerdicts(c), c.name).not.toContain("blank");
    const unseen = results.filter((r) => r.sigs.length === 0).map((r) => r.c.name);
    console.info(
      `${set.label}: ${cases.length} disks (${raw.length} raw, ` +
        `${cases.filter((c) => c.name.endsWith("-head")).length} head, ` +
        `${cases.filter((c) => c.name.endsWith("-tail")).length} tail); ` +
        `wipefs sees no signature on ${unseen.length}: ${unseen.join(" ")}`,
    );
  }, 180_000);

  it("liken-stick disks never calls a util-linux blkid image blank, as it is or at either end of a disk", async (ctx) => {
    ctx.skip(set.skip !== undefined, set.skip);
    const cases = set.cases(); // a set that could not be built fails here, saying why
    const r = await cli(["disks", "--json", ...cases.map((c) => c.path)]);
    const disks = JSON.parse(r.stdout) as { path: string; verdict: string; reasons: string[] }[];
    expect(disks.length).toBe(cases.length);
    const wrong = cases
      .map((c) => ({ c, d: disks.find((x) => x.path === c.path)! }))
      .filter(({ c, d }) => !acceptedVerdicts(c).includes(d.verdict as never))
      .map(({ c, d }) => `${c.name}: ${d.verdict}`);
    expect(wrong).toEqual([]);
    expect(disks.filter((d) => d.verdict === "blank")).toEqual([]);
  }, 120_000);
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
