// 4Kn on a real block device: sparse files attached with `losetup --sector-size 4096`, so
// the kernel, sfdisk, mtools, e2fsprogs and the installer all see a disk of 4096-byte
// logical blocks, as they see a 4Kn SAS drive or NVMe namespace (docs/install.md,
// "Controllers and sector sizes"). The install, `disks`, `inspect`, wipe and reinstall and
// the stale claim rules (installer/stale-claim.int.test.ts) are run on it as on a 512-byte
// disk, a liken disk read in the other sector size is stale and never written, and a
// layout that such a disk could not boot (an ESP under 260 MiB) is refused at planning
// without a byte written. Every loop device is detached in a `finally`, and any
// left behind is detached again after the file.
import { existsSync } from "node:fs";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { basename, join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { cli } from "../test/cli.ts";
import { loopsBackedBy } from "../test/corpus/disk-corpus.ts";
import { contentDigest, sparseFile } from "../test/disk-files.ts";
import { expectNewInstall, inspect } from "../test/inspect-disk.ts";
import { makeTestRelease } from "../test/release-fixture.ts";
import { run } from "../tools/exec.ts";

const MIB = 1024 * 1024;
const SECTOR = 4096;
/** The disk the fixed-roles manifest's install fits, 50 MiB to spare at its end. */
const FIXED_DISK = 1024 * MIB;
/** small.toml with the 260 MiB ESP a 4Kn disk needs. */
const MANIFEST_4KN = "test/fixtures/manifests/good/small-4kn.toml";
const LINUX = "0FC63DAF-8483-4772-8E79-3D69D8477DE4";
const root = process.getuid?.() === 0;

let dir: string;
let release: string;
/** small-4kn.toml with both storage roles at 64 MiB: the install fits 1 GiB and leaves room at its end. */
let fixedRoles: string;
/** The same with small.toml's 256 MiB ESP, too small for FAT32 in 4 KiB sectors. */
let smallEsp: string;
let counter = 0;

beforeAll(async () => {
  // On tmpfs where there is one: the loop devices' flushes and the digests' reads then cost
  // no disk I/O, which on a machine busy with other tests took most of this file's time.
  dir = await mkdtemp(join(existsSync("/dev/shm") ? "/dev/shm" : tmpdir(), "liken-4kn-test-"));
  release = await makeTestRelease(join(dir, "release-1.0.0"), { version: "1.0.0" });
  fixedRoles = join(dir, "fixed-roles-4kn.toml");
  const text = await readFile(MANIFEST_4KN, "utf8");
  const fixed = text
    .replace('size = "1GiB"', 'size = "64MiB"')
    .replace('size = "rest"', 'size = "64MiB"');
  expect(fixed).not.toContain('"rest"');
  await writeFile(fixedRoles, fixed);
  smallEsp = join(dir, "fixed-roles-256-esp.toml");
  const small = fixed.replace('esp = "260MiB"', 'esp = "256MiB"');
  expect(small).toContain('esp = "256MiB"');
  await writeFile(smallEsp, small);
}, 60_000);

afterAll(async () => {
  try {
    // A test that failed before its own `finally` ran leaves nothing attached either.
    if (root && dir) for (const loop of await loopsBackedBy(dir)) await detach(loop);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

/** `file` on a loop device of 4096-byte logical blocks (and partscan, for the kernel's partitions). */
async function attach4kn(file: string, opts: { partscan?: boolean } = {}): Promise<string> {
  const args = ["--find", "--show", "--sector-size", String(SECTOR)];
  if (opts.partscan) args.push("--partscan");
  const loop = (await run("losetup", [...args, file])).stdout.trim();
  expect(loop).toMatch(/^\/dev\/loop\d+$/);
  const block = await readFile(`/sys/class/block/${basename(loop)}/queue/logical_block_size`);
  expect(block.toString().trim(), `${loop}'s logical block size`).toBe(String(SECTOR));
  return loop;
}

/**
 * The digest of everything on a loop device: its cached blocks flushed to the backing file
 * and dropped (BLKFLSBUF), then the file read. As exact as reading the device, and much
 * faster on a busy machine: the device's own reads fill a second page cache with zeros.
 */
async function digest(loop: string): Promise<string> {
  await run("blockdev", ["--flushbufs", loop]);
  const file = await readFile(`/sys/class/block/${basename(loop)}/loop/backing_file`, "utf8");
  return contentDigest(file.trim());
}

async function detach(loop: string): Promise<void> {
  await run("losetup", ["--detach", loop]);
}

/** A new sparse file of `size` bytes on a 4Kn loop device; `body` runs with it, then it is detached. */
async function onBlank4kn<T>(
  size: number,
  body: (loop: string) => Promise<T>,
  opts: { partscan?: boolean } = {},
): Promise<T> {
  const file = await sparseFile(join(dir, `disk-${++counter}.img`), size);
  const loop = await attach4kn(file, opts);
  try {
    return await body(loop);
  } finally {
    await detach(loop);
  }
}

function installArgs(
  path: string,
  extra: readonly string[] = [],
  manifest: string = MANIFEST_4KN,
): string[] {
  return [
    "install",
    ...["--manifest", manifest, "--as", "leader-1", "--release", release],
    ...["--status-file", newStatusFile(path)],
    ...extra,
    path,
  ];
}

/** Each run's status file, by disk: a new one every run, so none is read from an earlier run. */
const statusFiles = new Map<string, string>();
function newStatusFile(path: string): string {
  const file = join(dir, `status-${++counter}.json`);
  statusFiles.set(path, file);
  return file;
}

/** The status document the last run on `path` wrote. */
async function status(path: string): Promise<{ phase: string; reason: string; message: string }> {
  return JSON.parse(await readFile(statusFiles.get(path)!, "utf8"));
}

// The small manifests' 256 MiB slot earns a warning on every run; anything else on stderr is news.
function withoutWarnings(stderr: string): string {
  return stderr
    .split("\n")
    .filter((l) => !l.startsWith("liken-stick install: warning: "))
    .join("\n");
}

interface DiskJson {
  readonly path: string;
  readonly verdict: string;
  readonly reasons: string[];
  readonly logicalSectorSize: number;
  readonly claim?: { cluster: string; machine: string; installId: string; complete: boolean };
}

async function disk(path: string): Promise<DiskJson> {
  const r = await cli(["disks", "--json", path]);
  expect(r.stderr).toBe("");
  expect(r.code).toBe(0);
  return (JSON.parse(r.stdout) as DiskJson[])[0]!;
}

interface SfdiskTable {
  readonly label: string;
  readonly sectorsize: number;
  readonly partitions: { name: string; start: number; size: number; type: string; uuid: string }[];
}

/** The table as sfdisk reads it from the device, in the device's own sectors. */
async function sfdiskTable(path: string): Promise<SfdiskTable> {
  return JSON.parse((await run("sfdisk", ["--json", path])).stdout).partitiontable;
}

/** The partitions the kernel lists for a loop device, with their starts in bytes (sysfs counts 512). */
async function kernelPartitions(loop: string): Promise<{ name: string; start: number }[]> {
  const name = basename(loop);
  const found: { name: string; start: number }[] = [];
  for (let i = 1; i <= 16; i++) {
    const p = `${name}p${i}`;
    const start = await readFile(`/sys/class/block/${name}/${p}/start`, "utf8").catch(() => "");
    if (start !== "") found.push({ name: p, start: Number(start.trim()) * 512 });
  }
  return found;
}

describe.runIf(root)("install on a 4Kn loop device", () => {
  it("writes a blank 4Kn disk in 4096-byte sectors, inspect reads it back, and a second run writes nothing", async () => {
    await onBlank4kn(2048 * MIB, async (loop) => {
      const blank = await disk(loop);
      expect(blank).toMatchObject({ verdict: "blank", reasons: [], logicalSectorSize: SECTOR });

      const first = await cli(installArgs(loop));
      expect(withoutWarnings(first.stderr)).toBe("");
      expect(first.code).toBe(0);
      expect(first.stdout).toContain("Installed as leader-1. Remove the stick and power cycle.\n");
      expect(await status(loop)).toMatchObject({ phase: "Installed", reason: "" });
      const installed = await disk(loop);
      expect(installed).toMatchObject({ verdict: "liken", logicalSectorSize: SECTOR });
      expect(installed.reasons[0]).toBe("liken-claim:complete");
      expect(installed.claim).toMatchObject({ machine: "leader-1", complete: true });

      // The GPT as sfdisk reads it from the device: 4096-byte sectors, every partition on a
      // whole MiB, the layout of small-4kn.toml.
      const table = await sfdiskTable(loop);
      expect(table.label).toBe("gpt");
      expect(table.sectorsize).toBe(SECTOR);
      for (const p of table.partitions) {
        expect((p.start * SECTOR) % MIB, `${p.name} starts on a MiB`).toBe(0);
        expect((p.size * SECTOR) % MIB, `${p.name} ends on a MiB`).toBe(0);
      }
      expect(
        table.partitions.map((p) => [p.name, (p.start * SECTOR) / MIB, (p.size * SECTOR) / MIB]),
      ).toEqual([
        ["liken-esp", 1, 260],
        ["liken-a", 261, 256],
        ["liken-b", 517, 256],
        ["liken-journal", 773, 8],
        ["liken-state", 781, 64],
        ["liken-data", 845, 1024],
        ["liken-scratch", 1869, 2048 - 1869 - 1],
      ]);

      // inspect reads the same table, the claim, slot A, the boot entry, the state and the journal.
      const i = await inspect(loop);
      expect(i.claim).toMatchObject({
        cluster: "testcluster",
        machine: "leader-1",
        release: "1.0.0",
        complete: true,
        copies: 2,
        installId: installed.claim?.installId,
      });
      expect(
        i.partitions.map((p: { label: string; start: number; size: number; partUuid: string }) => [
          p.label,
          p.start,
          p.size,
          p.partUuid,
        ]),
      ).toEqual(table.partitions.map((p) => [p.name, p.start * SECTOR, p.size * SECTOR, p.uuid]));
      expect(i.slots).toEqual({
        a: { version: "1.0.0", hashMatches: true },
        b: { version: null, hashMatches: null },
      });
      expect(i.entries).toEqual([
        {
          fileName: "liken-a-1.0.0.conf",
          slot: "a",
          version: "1.0.0",
          triesLeft: null,
          triesDone: null,
        },
      ]);
      expect(i.installer).toMatchObject({ phase: "Installed", installId: i.claim.installId });
      expect(i.identity).toMatchObject({ machine: "leader-1", installId: i.claim.installId });
      expect(i.journal).toMatchObject({ valid: true, installId: i.claim.installId });
      expect(i.problems).toEqual([]);

      // The ESP's FAT and the state's ext4 are made in the disk's 4 KiB blocks: the kernel
      // and the firmware mount neither in smaller ones on this disk.
      const esp = (await run("minfo", ["-i", `${loop}@@${MIB}`, "::"], { okExitCodes: [1] }))
        .stdout;
      expect(esp).toMatch(/^sector size: 4096 bytes$/m);
      expect(esp).toMatch(/^cluster size: 1 sectors$/m);
      const state = (
        await run("debugfs", ["-R", "stats", `${loop}?offset=${781 * MIB}`], { okExitCodes: [1] })
      ).stdout;
      expect(state).toMatch(/^Block size: +4096$/m);

      const before = await digest(loop);
      const second = await cli(installArgs(loop));
      expect(second.code).toBe(0);
      expect(second.stdout).toContain(
        `${loop} already holds leader-1 with release 1.0.0: nothing to do.`,
      );
      expect(await digest(loop)).toBe(before);
    });
  });

  it("wipe and reinstall erases a 4Kn install whose partitions the kernel lists, and installs a new one", async () => {
    await onBlank4kn(
      FIXED_DISK,
      async (loop) => {
        const first = await cli(installArgs(loop, [], fixedRoles));
        expect(withoutWarnings(first.stderr)).toBe("");
        expect(first.code).toBe(0);
        const old = await inspect(loop);
        // The kernel reads the table as a 4Kn disk's: its partitions where inspect says.
        // (This kernel parses no GPT by itself: partx adds what the table lists.)
        if ((await kernelPartitions(loop)).length === 0) await run("partx", ["--add", loop]);
        expect((await kernelPartitions(loop)).map((p) => p.start)).toEqual(
          old.partitions.map((p: { start: number }) => p.start),
        );

        const r = await cli(installArgs(loop, ["--wipe"], fixedRoles));
        expect(withoutWarnings(r.stderr)).toBe("");
        expect(r.code).toBe(0);
        expect(r.stdout).toContain(`erasing the liken install on ${loop}`);
        // The old partitions are gone; the new table is read at the next boot.
        expect(await kernelPartitions(loop)).toEqual([]);
        await expectNewInstall(loop, old.claim.installId);
        const table = await sfdiskTable(loop);
        expect(table.sectorsize).toBe(SECTOR);
        expect(table.partitions.map((p) => p.start * SECTOR)).toEqual(
          old.partitions.map((p: { start: number }) => p.start),
        );
      },
      { partscan: true },
    );
  });

  it("refuses a layout whose ESP is under 260 MiB at planning, on a blank 4Kn disk and over a 4Kn install, writing nothing", async () => {
    const refusal =
      /has 4096-byte sectors, where an ESP of 256 MiB is too small for FAT32 \(at least 260 MiB\)/;
    await onBlank4kn(FIXED_DISK, async (loop) => {
      const before = await digest(loop);
      const planned = await cli(["plan", "--manifest", smallEsp, "--as", "leader-1", loop]);
      expect(planned.code).toBe(1);
      expect(planned.stderr).toMatch(refusal);
      const r = await cli(installArgs(loop, [], smallEsp));
      expect(r.code).toBe(1);
      expect(r.stderr).toMatch(refusal);
      expect(await status(loop)).toMatchObject({
        phase: "Failed",
        reason: "SectorSizeUnsupported",
      });
      expect(await digest(loop)).toBe(before);
      expect((await disk(loop)).verdict).toBe("blank");
    });
    // A wipe that would erase first is refused before the erase: the old install stays whole.
    await onBlank4kn(FIXED_DISK, async (loop) => {
      expect((await cli(installArgs(loop, [], fixedRoles))).code).toBe(0);
      const before = await digest(loop);
      const r = await cli(installArgs(loop, ["--wipe"], smallEsp));
      expect(r.code).toBe(1);
      expect(r.stderr).toMatch(refusal);
      expect(await status(loop)).toMatchObject({
        phase: "Failed",
        reason: "SectorSizeUnsupported",
      });
      expect(await digest(loop)).toBe(before);
      const d = await disk(loop);
      expect(d.verdict).toBe("liken");
      expect(d.reasons[0]).toBe("liken-claim:complete");
    });
  });
});

// installer/stale-claim.int.test.ts on a 4Kn device: every tool writes through the loop
// device in its 4096-byte sectors, over a fresh copy of one complete 4Kn install.
describe.runIf(root)("a 4Kn liken disk written over by someone else", () => {
  /** An image file holding a complete install made through a 4Kn loop device. */
  let installed: string;
  /** liken's partitions on it, by name, in bytes. */
  let layout: Map<string, { start: number; size: number }>;

  beforeAll(async () => {
    installed = await sparseFile(join(dir, "installed-4kn.img"), FIXED_DISK);
    const loop = await attach4kn(installed);
    try {
      const r = await cli(installArgs(loop, [], fixedRoles));
      expect(r.code, r.stderr).toBe(0);
      const table = await sfdiskTable(loop);
      expect(table.sectorsize).toBe(SECTOR);
      layout = new Map(
        table.partitions.map((p) => [p.name, { start: p.start * SECTOR, size: p.size * SECTOR }]),
      );
    } finally {
      await detach(loop);
    }
  }, 120_000);

  /**
   * A fresh copy of `image` (the 4Kn install) on a loop device, of 4096-byte sectors unless
   * `sector512`; `body` runs with it, then it is detached and the copy removed.
   */
  async function onCopy(
    body: (loop: string) => Promise<void>,
    image: string = installed,
    opts: { sector512?: boolean } = {},
  ): Promise<void> {
    const copy = join(dir, `copy-${++counter}.img`);
    await run("cp", ["--sparse=always", image, copy]);
    const loop = opts.sector512
      ? (await run("losetup", ["--find", "--show", copy])).stdout.trim()
      : await attach4kn(copy);
    try {
      await body(loop);
    } finally {
      await detach(loop);
      await rm(copy, { force: true });
    }
  }

  const sfdisk = (path: string, script: string, extra: readonly string[] = []) =>
    run("sfdisk", ["--quiet", "--no-reread", "--no-tell-kernel", ...extra, path], {
      input: script,
    });

  /** ext4 holding a file, `size` bytes of it at byte `offset` of the device, nothing discarded. */
  async function ext4At(path: string, offset: number, size: number): Promise<void> {
    const files = join(dir, "files");
    await run("mkdir", ["-p", join(files, "home", "user")]);
    await writeFile(join(files, "home", "user", "notes.txt"), "not liken's\n");
    await run("mkfs.ext4", [
      ...["-q", "-F", "-d", files, "-E", `offset=${offset},nodiscard`],
      ...[path, `${size / 1024}k`],
    ]);
  }

  const part = (name: string) => {
    const p = layout.get(name);
    if (!p) throw new Error(`the install has no partition ${name}`);
    return p;
  };

  const sectors = (bytes: number) => bytes / SECTOR;

  it("the untouched copy is liken's, complete, in 4096-byte sectors", async () => {
    await onCopy(async (loop) => {
      const d = await disk(loop);
      expect(d).toMatchObject({ verdict: "liken", logicalSectorSize: SECTOR });
      expect(d.reasons[0]).toBe("liken-claim:complete");
      expect([...layout.keys()]).toEqual([
        "liken-esp",
        "liken-a",
        "liken-b",
        "liken-journal",
        "liken-state",
        "liken-data",
        "liken-scratch",
      ]);
    });
  });

  const overwrites: readonly (readonly [string, (loop: string) => Promise<void>])[] = [
    [
      "a new GPT (sfdisk, 4096-byte sectors) with one partition, ext4 holding files at 1 MiB",
      async (loop) => {
        await sfdisk(
          loop,
          `label: gpt\nstart=${sectors(MIB)}, size=${sectors(256 * MIB)}, type=${LINUX}\n`,
        );
        const table = await sfdiskTable(loop);
        expect(table.sectorsize).toBe(SECTOR);
        expect(table.partitions).toHaveLength(1);
        await ext4At(loop, MIB, 256 * MIB);
      },
    ],
    [
      "an MBR partition table in 4096-byte sectors",
      async (loop) => {
        await sfdisk(
          loop,
          `label: dos\nstart=${sectors(MIB)}, size=${sectors(256 * MIB)}, type=83\n`,
        );
      },
    ],
    [
      "a partition added to liken's table (sfdisk --append)",
      async (loop) => {
        await sfdisk(loop, `size=${sectors(32 * MIB)}, type=${LINUX}\n`, ["--append"]);
        expect((await sfdiskTable(loop)).partitions).toHaveLength(8);
      },
    ],
    [
      "mkfs.ext4 -F on the whole device, nothing discarded",
      async (loop) => {
        await run("mkfs.ext4", ["-q", "-F", "-E", "nodiscard", loop]);
      },
    ],
    [
      "ext4 inside liken's ESP",
      async (loop) => {
        const esp = part("liken-esp");
        await ext4At(loop, esp.start, esp.size);
      },
    ],
  ];

  /** `disks` calls the disk foreign with liken-claim:stale first, and install refuses it with and without --wipe, writing nothing. */
  async function expectStaleAndRefused(loop: string, manifest: string): Promise<void> {
    const d = await disk(loop);
    expect(d.verdict, d.reasons.join(", ")).toBe("foreign");
    expect(d.reasons[0], d.reasons.join(", ")).toBe("liken-claim:stale");
    expect(d.claim).toBeUndefined();
    const before = await digest(loop);
    for (const wipe of [[], ["--wipe"]]) {
      const r = await cli(installArgs(loop, wipe, manifest));
      expect(r.code, `${wipe.join(" ")}: ${r.stderr}`).toBe(1);
      expect(r.stderr).toMatch(/liken-claim:stale/);
      expect(r.stderr).toMatch(
        wipe.length === 0
          ? /no blank disk: every disk holds data or cannot be a target/
          : /--wipe refuses disks holding data liken did not write/,
      );
      expect(await status(loop)).toMatchObject({
        phase: "Failed",
        reason: wipe.length === 0 ? "NoEligibleDisk" : "DiskNotLiken",
      });
    }
    expect(await digest(loop), "install or wipe changed the disk").toBe(before);
  }

  it.each(overwrites)(
    "%s: foreign with liken-claim:stale, and install refuses it with and without --wipe",
    async (_, overwrite) => {
      await onCopy(async (loop) => {
        await overwrite(loop);
        await expectStaleAndRefused(loop, fixedRoles);
      });
    },
  );

  // A disk whose sector size changed under it (a USB-SATA bridge or a controller that
  // presents another one, a drive reformatted to 4Kn) holds a table no longer read at its
  // offsets: the claim is there, what it speaks for is not. The disk is someone's data
  // as far as liken can tell, and is never written, wipe included.
  it("a liken install read in the other sector size is foreign with liken-claim:stale, and install refuses it with and without --wipe", async () => {
    // The 4Kn install read as a disk of 512-byte sectors.
    await onCopy(
      async (loop) => {
        const block = await readFile(`/sys/class/block/${basename(loop)}/queue/logical_block_size`);
        expect(block.toString().trim()).toBe("512");
        await expectStaleAndRefused(loop, fixedRoles);
      },
      installed,
      { sector512: true },
    );
    // An install laid out in 512-byte sectors (an image file) read as a 4Kn disk.
    const image512 = await sparseFile(join(dir, `install-512-${++counter}.img`), FIXED_DISK);
    const r = await cli(installArgs(image512, [], smallEsp));
    expect(r.code, r.stderr).toBe(0);
    expect((await sfdiskTable(image512)).sectorsize).toBe(512);
    await onCopy((loop) => expectStaleAndRefused(loop, fixedRoles), image512);
    await rm(image512);
  });

  // The contrast: a mkfs that discards (the loop device punches the file's blocks, as an
  // SSD that honours discard drops them) takes the claim with it: an ordinary foreign disk.
  it("mkfs.ext4 that discards leaves no claim at all: foreign", async () => {
    await onCopy(async (loop) => {
      await run("mkfs.ext4", ["-q", "-F", loop]);
      const d = await disk(loop);
      expect(d.verdict).toBe("foreign");
      expect(d.reasons.filter((x) => x.startsWith("liken-"))).toEqual([]);
      expect(d.reasons).toContain("signature:ext4@0x438");
    });
  });
});
