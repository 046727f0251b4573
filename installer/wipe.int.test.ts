// Wipe and reinstall over a complete install, on image files and on a loop device: a loop
// device is a kernel block device, whose kernel lists the old install's partitions until
// the erase makes it read the (empty) table again; an image file has no such list. Killed
// anywhere inside the erase, the disk still reads `liken`, and the same wipe finishes.
import { mkdtemp, rm, stat } from "node:fs/promises";
import { tmpdir } from "node:os";
import { basename, join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { cli } from "../test/cli.ts";
import { sparseFile } from "../test/disk-files.ts";
import { expectNewInstall, inspect } from "../test/inspect-disk.ts";
import { makeTestRelease } from "../test/release-fixture.ts";
import { run } from "../tools/exec.ts";

const MANIFEST = "test/fixtures/manifests/good/small.toml";
const MIB = 1024 * 1024;
const DISK_SIZE = 2560 * MIB;
const root = process.getuid?.() === 0;

let dir: string;
let release: string;
let counter = 0;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "liken-wipe-test-"));
  release = await makeTestRelease(join(dir, "release-1.0.0"), { version: "1.0.0" });
}, 60_000);

afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

function installArgs(paths: readonly string[], extra: readonly string[] = []): string[] {
  return [
    "install",
    ...["--manifest", MANIFEST, "--as", "leader-1", "--release", release],
    ...["--status-file", join(dir, `status-${++counter}.json`)],
    ...extra,
    ...paths,
  ];
}

// The small manifest's 256 MiB slot earns a warning on every run; anything else on stderr is news.
function withoutWarnings(stderr: string): string {
  return stderr
    .split("\n")
    .filter((l) => !l.startsWith("liken-stick install: warning: "))
    .join("\n");
}

/** A sparse image file holding a complete install of leader-1, and that install's id. */
async function installedDisk(): Promise<{ disk: string; installId: string }> {
  const disk = await sparseFile(join(dir, `disk-${++counter}.img`), DISK_SIZE);
  const r = await cli(installArgs([disk]));
  expect(withoutWarnings(r.stderr)).toBe("");
  expect(r.code).toBe(0);
  return { disk, installId: (await inspect(disk)).claim.installId };
}

async function verdict(
  path: string,
): Promise<{ verdict: string; reasons: string[]; claim?: { installId: string } }> {
  return JSON.parse((await cli(["disks", "--json", path])).stdout)[0];
}

/** The partitions the kernel lists for a loop device (sysfs), by name. */
async function kernelPartitions(loop: string, count = 16): Promise<string[]> {
  const name = basename(loop);
  const found: string[] = [];
  for (let i = 1; i <= count; i++) {
    const p = `${name}p${i}`;
    if (await stat(`/sys/class/block/${name}/${p}`).catch(() => undefined)) found.push(p);
  }
  return found;
}

/**
 * `file` on a loop device with partscan, its partitions listed by the kernel as a real
 * disk's are at boot. A kernel without a GPT parser (this CI's) lists none by itself:
 * partx adds them from the table.
 */
async function attachWithPartitions(file: string): Promise<string> {
  const loop = (await run("losetup", ["--find", "--show", "--partscan", file])).stdout.trim();
  if ((await kernelPartitions(loop)).length === 0) await run("partx", ["--add", loop]);
  return loop;
}

describe.runIf(root)("wipe and reinstall on a loop device", () => {
  it("erases an install whose partitions the kernel lists, and installs a new one", async () => {
    const { disk, installId } = await installedDisk();
    const loop = await attachWithPartitions(disk);
    try {
      expect(await kernelPartitions(loop)).toHaveLength(7);
      const r = await cli(installArgs([loop], ["--wipe"]));
      expect(withoutWarnings(r.stderr)).toBe("");
      expect(r.code).toBe(0);
      expect(r.stdout).toContain(`erasing the liken install on ${loop}`);
      // The old partitions are gone; the new table is read at the next boot.
      expect(await kernelPartitions(loop)).toEqual([]);
      await expectNewInstall(loop, installId);
    } finally {
      await run("losetup", ["--detach", loop]);
    }
  });

  it.each([
    ["before the kernel forgot the partitions", edgesErased, 7],
    ["after it did, inside the table", async (d: string) => (await edgesErased(d)) + 1, 0],
  ])("killed %s, reads liken, and the same wipe finishes", async (_, bytes, listed) => {
    const { disk, installId } = await installedDisk();
    const loop = await attachWithPartitions(disk);
    try {
      const killed = await cli(installArgs([loop], ["--wipe"]), {
        env: { LIKEN_TEST_KILL_AFTER_ERASED: String(await bytes(disk)), TMPDIR: dir },
      });
      expect(killed.code).toBe("SIGKILL");
      expect(await kernelPartitions(loop)).toHaveLength(listed);
      expect((await verdict(loop)).verdict).toBe("liken");
      const again = await cli(installArgs([loop], ["--wipe"]));
      expect(withoutWarnings(again.stderr)).toBe("");
      expect(again.code).toBe(0);
      await expectNewInstall(loop, installId);
    } finally {
      await run("losetup", ["--detach", loop]);
    }
  });
});

/** Bytes the erase zeroes at every partition's edges: its first 4 MiB and last MiB. */
async function edgesErased(disk: string): Promise<number> {
  const table = JSON.parse((await run("sfdisk", ["--json", disk])).stdout).partitiontable;
  let bytes = 0;
  for (const p of table.partitions as { size: number }[]) {
    const size = p.size * 512;
    const head = Math.min(size, 4 * MIB);
    bytes += head + Math.min(size - head, MIB);
  }
  return bytes;
}

/** ... and then at the disk's first and last MiB, all but the claim's two sectors. */
async function tablesErased(disk: string): Promise<number> {
  return (await edgesErased(disk)) + 2 * MIB - 2 * 512;
}

describe("a wipe killed inside the erase", () => {
  const points: [string, (disk: string) => Promise<number>][] = [
    ["the first partition's head", async () => 1],
    ["half of the partitions' edges", async (d) => Math.floor((await edgesErased(d)) / 2)],
    ["every partition's edges", edgesErased],
    ["the primary GPT", async (d) => (await edgesErased(d)) + 1],
    ["both tables", tablesErased],
    ["the claim's tail copy", async (d) => (await tablesErased(d)) + 1],
  ];

  it.each(points)("after %s leaves a liken disk that the same wipe finishes", async (_, bytes) => {
    const { disk, installId } = await installedDisk();
    const killed = await cli(installArgs([disk], ["--wipe"]), {
      env: { LIKEN_TEST_KILL_AFTER_ERASED: String(await bytes(disk)), TMPDIR: dir },
    });
    expect(killed.code).toBe("SIGKILL");
    const v = await verdict(disk);
    expect(v.verdict).toBe("liken");
    expect(v.reasons.filter((r) => r.startsWith("liken-claim:"))).toHaveLength(1);
    const again = await cli(installArgs([disk], ["--wipe"]));
    expect(withoutWarnings(again.stderr)).toBe("");
    expect(again.code).toBe(0);
    await expectNewInstall(disk, installId);
  });

  it("after the whole erase, leaves only the old claim's head copy, which the claim step replaces", async () => {
    const { disk, installId } = await installedDisk();
    const killed = await cli(installArgs([disk], ["--wipe"]), {
      env: { LIKEN_TEST_KILL_AT: "claim", TMPDIR: dir },
    });
    expect(killed.code).toBe("SIGKILL");
    const v = await verdict(disk);
    expect(v.verdict).toBe("liken");
    // Marked partial before anything was erased: no install here is complete any more.
    expect(v.claim).toMatchObject({ installId, complete: false });
    expect(v.reasons.filter((r) => /^(partition|signature:)/.test(r))).toEqual([]);
    // A plain install finishes that install instead of calling it done.
    const plain = await cli(installArgs([disk]));
    expect(plain.code, plain.stderr).toBe(0);
    expect(plain.stdout).not.toContain("nothing to do");
    expect((await verdict(disk)).claim).toMatchObject({ installId, complete: true });
    const again = await cli(installArgs([disk], ["--wipe"]));
    expect(withoutWarnings(again.stderr)).toBe("");
    expect(again.code).toBe(0);
    await expectNewInstall(disk, installId);
  });
});
