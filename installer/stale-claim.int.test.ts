// A liken claim outlives what liken wrote: it sits outside every partition, so a new
// partition table, mkfs, wipefs or a LUKS header leaves it where it was. Such a disk holds
// someone's data now, and wipe and reinstall must leave it alone like any foreign disk
// (hardware/disks/claim-holds.ts, docs/disks.md "liken-claim:stale"). Every case writes
// over a fresh copy of one complete install with the tool an operator would use, then
// checks both that `disks` calls it foreign with liken-claim:stale first and that install,
// with and without --wipe, refuses it without writing a byte.
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, type ExpectStatic, expect, it } from "vitest";
import { cli } from "../test/cli.ts";
import { contentDigest, sparseFile } from "../test/disk-files.ts";
import { makeTestRelease } from "../test/release-fixture.ts";
import { run } from "../tools/exec.ts";

const MIB = 1024 * 1024;
const DISK_BYTES = 1280 * MIB;
const LINUX = "0FC63DAF-8483-4772-8E79-3D69D8477DE4";

let dir: string;
let release: string;
let manifest: string;
let installed: string;
/** liken's partitions on the installed disk, by name, in bytes. */
let layout: Map<string, { start: number; size: number }>;
let copies = 0;

interface DiskJson {
  readonly path: string;
  readonly verdict: string;
  readonly reasons: string[];
  readonly claim?: { cluster: string; machine: string; complete: boolean };
}

async function disk(path: string): Promise<DiskJson> {
  const r = await cli(["disks", "--json", path]);
  expect(r.stderr).toBe("");
  return (JSON.parse(r.stdout) as DiskJson[])[0]!;
}

function install(path: string, extra: readonly string[] = []) {
  return cli([
    "install",
    ...extra,
    ...["--manifest", manifest, "--as", "leader-1", "--release", release],
    ...["--status-file", `${path}.status.json`, path],
  ]);
}

/** A fresh copy of the complete install, sparse as the original. */
async function copyOfInstall(): Promise<string> {
  const copy = join(dir, `copy-${++copies}.img`);
  await run("cp", ["--sparse=always", installed, copy]);
  return copy;
}

async function sfdisk(path: string, script: string, extra: readonly string[] = []) {
  await run("sfdisk", ["--quiet", "--no-reread", "--no-tell-kernel", ...extra, path], {
    input: script,
  });
}

/**
 * ext4 holding a few files, `size` bytes of it at byte `offset` of the disk. nodiscard: on
 * an image file mke2fs's discard punches the whole range, as on an SSD that honours
 * discard, and takes nothing else with it; a spinning disk keeps everything outside the file
 * system, and that is the case that leaves the claim behind.
 */
async function ext4At(path: string, offset: number, size: number): Promise<void> {
  const files = join(dir, "files");
  await run("mkdir", ["-p", join(files, "home", "user")]);
  await writeFile(join(files, "home", "user", "notes.txt"), "not liken's\n");
  await run("mkfs.ext4", [
    "-q",
    "-F",
    "-d",
    files,
    "-E",
    `offset=${offset},nodiscard`,
    path,
    `${size / 1024}k`,
  ]);
}

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "liken-stale-claim-"));
  release = await makeTestRelease(join(dir, "release"), { version: "1.0.0" });
  // The small manifest with both storage roles at a fixed size: the install fits a 1280 MiB
  // disk and leaves free space at its end, where a partition can be added to liken's table.
  manifest = join(dir, "fixed-roles.toml");
  const text = await readFile("test/fixtures/manifests/good/small.toml", "utf8");
  const fixed = text
    .replace('size = "1GiB"', 'size = "128MiB"')
    .replace('size = "rest"', 'size = "128MiB"');
  expect(fixed).not.toContain('"rest"');
  await writeFile(manifest, fixed);
  installed = await sparseFile(join(dir, "installed.img"), DISK_BYTES);
  const r = await install(installed);
  expect(r.code, r.stderr).toBe(0);
  const table = JSON.parse((await run("sfdisk", ["--json", installed])).stdout) as {
    partitiontable: { partitions: { name: string; start: number; size: number }[] };
  };
  layout = new Map(
    table.partitiontable.partitions.map((p) => [
      p.name,
      { start: p.start * 512, size: p.size * 512 },
    ]),
  );
}, 120_000);

afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** A counting semaphore: at most `free` holders at a time. */
function semaphore(free: number) {
  const waiting: (() => void)[] = [];
  return {
    async take(): Promise<void> {
      if (free > 0) free--;
      else await new Promise<void>((resolve) => waiting.push(resolve));
    },
    give(): void {
      const next = waiting.shift();
      if (next) next();
      else free++;
    },
  };
}
const slots = semaphore(2);

const part = (name: string) => {
  const p = layout.get(name);
  if (!p) throw new Error(`the install has no partition ${name}`);
  return p;
};

const overwrites: readonly (readonly [string, (path: string) => Promise<void>])[] = [
  [
    "a new GPT with one partition, ext4 holding files at 1 MiB",
    async (path) => {
      await sfdisk(path, `label: gpt\nstart=2048, size=${(400 * MIB) / 512}, type=${LINUX}\n`);
      await ext4At(path, MIB, 400 * MIB);
    },
  ],
  [
    "mkfs.ext4 -F on the whole disk",
    async (path) => {
      await run("mkfs.ext4", ["-q", "-F", "-E", "nodiscard", path]);
    },
  ],
  [
    // xfs needs 300 MiB and the ESP has 256: ext4 it is.
    "ext4 inside liken's ESP",
    async (path) => {
      const esp = part("liken-esp");
      await ext4At(path, esp.start, esp.size);
    },
  ],
  [
    "an MBR partition table",
    async (path) => {
      await sfdisk(path, `label: dos\nstart=2048, size=${(400 * MIB) / 512}, type=83\n`);
    },
  ],
  [
    "a partition added to liken's table (sfdisk --append)",
    async (path) => {
      await sfdisk(path, `size=${(64 * MIB) / 512}, type=${LINUX}\n`, ["--append"]);
    },
  ],
  [
    "wipefs -a on the table, then ext4 at 1 MiB",
    async (path) => {
      // wipefs takes an image file for a partition, where it erases no partition table
      // unless forced; on the disk itself it needs no --force.
      await run("wipefs", ["--all", "--force", "--quiet", path]);
      await ext4At(path, MIB, 400 * MIB);
    },
  ],
  [
    "a LUKS2 header at the start of liken's state partition",
    async (path) => {
      const state = part("liken-state");
      const luks = await sparseFile(`${path}.luks`, 32 * MIB);
      const key = `${path}.key`;
      await writeFile(key, "a key that is not liken's", { mode: 0o600 });
      await run("cryptsetup", [
        ...["luksFormat", "--type", "luks2", "--batch-mode", "--key-file", key],
        ...["--pbkdf", "pbkdf2", "--pbkdf-force-iterations", "1000", luks],
      ]);
      await run("dd", [
        `if=${luks}`,
        `of=${path}`,
        "bs=1M",
        `seek=${state.start / MIB}`,
        "conv=notrunc",
        "status=none",
      ]);
    },
  ],
];

describe("a liken disk written over by someone else", () => {
  it("the untouched copy is liken's, complete", async () => {
    const copy = await copyOfInstall();
    const d = await disk(copy);
    expect(d.verdict).toBe("liken");
    expect(d.reasons[0]).toBe("liken-claim:complete");
    expect(d.claim).toMatchObject({ cluster: "testcluster", machine: "leader-1", complete: true });
    // The ESP, state and storage starts are where the overwrites below aim.
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

  // Two at a time (2 cores), each on a copy of its own: much of a case's time is reading
  // the 1.25 GiB copy for its digests, and the other's CLI runs fill the gaps.
  it.concurrent.for(overwrites)(
    "%s: foreign with liken-claim:stale, and install refuses it with and without --wipe",
    { timeout: 300_000 },
    async ([, overwrite], { expect }) => {
      await slots.take();
      try {
        await refused(overwrite, expect);
      } finally {
        slots.give();
      }
    },
  );

  async function refused(overwrite: (path: string) => Promise<void>, expect: ExpectStatic) {
    const copy = await copyOfInstall();
    await overwrite(copy);
    const d = await disk(copy);
    expect(d.verdict, d.reasons.join(", ")).toBe("foreign");
    expect(d.reasons[0], d.reasons.join(", ")).toBe("liken-claim:stale");
    expect(d.claim).toBeUndefined();
    const before = await contentDigest(copy);
    for (const wipe of [[], ["--wipe"]]) {
      const r = await install(copy, wipe);
      expect(r.code, `${wipe.join(" ")}: ${r.stderr}`).toBe(1);
      expect(r.stderr).toMatch(/liken-claim:stale/);
      expect(r.stderr).toMatch(
        wipe.length === 0
          ? /no blank disk: every disk holds data or cannot be a target/
          : /--wipe refuses disks holding data liken did not write/,
      );
    }
    // Once for both runs: reading the copy whole is most of a case's time.
    expect(await contentDigest(copy), "install or wipe changed the disk").toBe(before);
    await rm(copy);
  }

  // The contrast: a mkfs that discards the disk (an SSD, or an image file) takes the claim
  // with it. Nothing of liken's is left to be stale: an ordinary foreign disk.
  it("mkfs.ext4 that discards leaves no claim at all: foreign", async () => {
    const copy = await copyOfInstall();
    await run("mkfs.ext4", ["-q", "-F", copy]);
    const d = await disk(copy);
    expect(d.verdict).toBe("foreign");
    expect(d.reasons.filter((x) => x.startsWith("liken-"))).toEqual([]);
    expect(d.reasons).toContain("signature:ext4@0x438");
    await rm(copy);
  });
});
