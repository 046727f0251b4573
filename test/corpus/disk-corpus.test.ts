// The corpus is only worth something if it is real: every disk that must not be called
// blank holds what its name says (wipefs sees the signature at the offset the expectation
// names, or the bytes / mount / read-only flag / size are checked directly), and every
// disk that must be called blank has no signature and zeros at both ends.
import { constants } from "node:fs";
import { mkdir, mkdtemp, open, readdir, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { run } from "../../tools/exec.ts";
import { cli } from "../cli.ts";
import { BLKID_IMAGES_DIR, buildBlkidCorpus, listBlkidImages } from "./blkid-corpus.ts";
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
  md1Offset,
  md090Offset,
  nonzeroEnds,
  reasonMatches,
} from "./disk-corpus.ts";

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

async function mapLimit<T, R>(
  items: readonly T[],
  limit: number,
  fn: (item: T) => Promise<R>,
): Promise<R[]> {
  const out: R[] = new Array(items.length);
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < items.length) {
      const i = next++;
      out[i] = await fn(items[i]!);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return out;
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

describe("disk corpus", () => {
  let dir: string;
  let corpus: DiskCorpus | undefined;
  let blkidCases: CorpusCase[] = [];
  const times: Record<string, number> = {};

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), "liken-corpus-"));
    const timed = async <T>(label: string, f: () => Promise<T>): Promise<T> => {
      const t0 = performance.now();
      try {
        return await f();
      } finally {
        times[label] = Math.round(performance.now() - t0);
      }
    };
    const [disk, blkid] = await Promise.all([
      timed("disk corpus", () => buildDiskCorpus(join(dir, "disk"), { loopDevices: root })),
      timed("blkid corpus", () => buildBlkidCorpus(join(dir, "blkid"))),
    ]);
    corpus = disk;
    blkidCases = blkid;
    console.info(`corpus build times (ms, built side by side): ${JSON.stringify(times)}`);
  }, 180_000);

  afterAll(async () => {
    try {
      await corpus?.cleanup();
      if (root && dir) expect(await loopsBackedBy(dir)).toEqual([]);
    } finally {
      if (dir) await rm(dir, { recursive: true, force: true });
    }
  }, 60_000);

  it("has every required case, with unique names", () => {
    const names = corpus!.cases.map((c) => c.name);
    expect(new Set(names).size).toBe(names.length);
    expect(names.length).toBeGreaterThanOrEqual(25);
    for (const n of REQUIRED) expect(names, n).toContain(n);
  });

  it("every case is what its expectation says (checked with wipefs, sfdisk, sysfs, the bytes)", async () => {
    const sigs = await wipefsMany(corpus!.cases.map((c) => c.path));
    const results = await mapLimit(corpus!.cases, 4, async (c) => ({
      c,
      p: await problems(c, sigs.get(c.path)!),
    }));
    const bad = results.filter((r) => r.p.length > 0).map((r) => `${r.c.name}: ${r.p.join("; ")}`);
    expect(bad).toEqual([]);
  }, 120_000);

  it("the checks bite: a wrong offset, a wrong type, a wrong end, a false blank are caught", async () => {
    const ext4 = corpus!.cases.find((c) => c.name === "ext4")!;
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
      const failDir = join(dir, "fail");
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
      const c = corpus!.cases.find((x) => x.name === name)!;
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
      const c = corpus!.cases.find((x) => x.name === name)!;
      const { stdout } = await run("blkid", ["-p", "-o", "export", "--offset", "1048576", c.path]);
      expect(stdout, name).toContain("TYPE=ext4\n");
    }
  });

  it("blkid corpus: every util-linux image, as it is and at both ends of a disk, is never blank", async () => {
    const images = await listBlkidImages();
    expect(images.length, BLKID_IMAGES_DIR).toBe(138);
    const raw = blkidCases.filter((c) => c.name.endsWith("-raw"));
    expect(raw.length).toBe(images.length);
    const sigs = await wipefsMany(blkidCases.map((c) => c.path));
    const results = await mapLimit(blkidCases, 4, async (c) => ({
      c,
      p: await problems(c, sigs.get(c.path)!),
      sigs: sigs.get(c.path)!,
    }));
    const bad = results.filter((r) => r.p.length > 0).map((r) => `${r.c.name}: ${r.p.join("; ")}`);
    expect(bad).toEqual([]);
    for (const c of blkidCases) expect(acceptedVerdicts(c), c.name).not.toContain("blank");
    const unseen = results.filter((r) => r.sigs.length === 0).map((r) => r.c.name);
    console.info(
      `blkid corpus: ${blkidCases.length} disks (${raw.length} raw, ` +
        `${blkidCases.filter((c) => c.name.endsWith("-head")).length} head, ` +
        `${blkidCases.filter((c) => c.name.endsWith("-tail")).length} tail); ` +
        `wipefs sees no signature on ${unseen.length}: ${unseen.join(" ")}`,
    );
  }, 180_000);

  // The classifier itself, run as an operator runs it: the bundled command on every disk.
  it("liken-stick disks gives every corpus disk its expected verdict and reasons", async () => {
    const cases = corpus!.cases;
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

  it("liken-stick disks never calls a util-linux blkid image blank, as it is or at either end of a disk", async () => {
    const r = await cli(["disks", "--json", ...blkidCases.map((c) => c.path)]);
    const disks = JSON.parse(r.stdout) as { path: string; verdict: string; reasons: string[] }[];
    expect(disks.length).toBe(blkidCases.length);
    const wrong = blkidCases
      .map((c) => ({ c, d: disks.find((x) => x.path === c.path)! }))
      .filter(({ c, d }) => !acceptedVerdicts(c).includes(d.verdict as never))
      .map(({ c, d }) => `${c.name}: ${d.verdict}`);
    expect(wrong).toEqual([]);
    expect(disks.filter((d) => d.verdict === "blank")).toEqual([]);
  }, 120_000);
});
