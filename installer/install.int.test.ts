import { mkdtemp, readFile, rm, truncate, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { cli } from "../test/cli.ts";
import { contentDigest } from "../test/disk-files.ts";
import { makeTestRelease, writeReleaseTomlFor } from "../test/release-fixture.ts";
import { run } from "../tools/exec.ts";

const MANIFEST = "test/fixtures/manifests/good/small.toml";
const MIB = 1024 * 1024;
const GIB = 1024 * MIB;
const root = process.getuid?.() === 0;

let dir: string;
let release: string;
let counter = 0;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "liken-install-test-"));
  // 6 MiB of data, so the slot write can be killed part way.
  release = await makeTestRelease(join(dir, "release-1.0.0"), {
    version: "1.0.0",
    dataBytes: 6 * MIB,
  });
}, 60_000);

afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

async function sparse(size: number): Promise<string> {
  const file = join(dir, `disk-${++counter}.img`);
  await writeFile(file, "");
  await truncate(file, size);
  return file;
}

const sha256 = contentDigest;

// The small manifest's 256 MiB slot earns a warning on every run; anything else on stderr is news.
function withoutWarnings(stderr: string): string {
  return stderr
    .split("\n")
    .filter((l) => !l.startsWith("liken-stick install: warning: "))
    .join("\n");
}

function installArgs(
  paths: readonly string[],
  extra: readonly string[] = [],
  releaseDir = release,
): string[] {
  return [
    "install",
    "--manifest",
    MANIFEST,
    "--as",
    "leader-1",
    "--release",
    releaseDir,
    "--status-file",
    join(dir, `status-${counter}.json`),
    ...extra,
    ...paths,
  ];
}

async function verdicts(paths: readonly string[]): Promise<string[]> {
  const r = await cli(["disks", "--json", ...paths]);
  return (JSON.parse(r.stdout) as { verdict: string; reasons: string[] }[]).map((d) =>
    d.verdict === "liken"
      ? `liken:${d.reasons.find((x) => x.startsWith("liken-claim:"))?.slice(12)}`
      : d.verdict,
  );
}

async function status(): Promise<{ phase: string; reason: string; message: string }> {
  return JSON.parse(await readFile(join(dir, `status-${counter}.json`), "utf8"));
}

async function foreignDisk(): Promise<string> {
  const file = await sparse(GIB);
  await run("mkfs.ext4", ["-q", "-F", file]);
  return file;
}

describe("install as", () => {
  it("writes a blank disk, and a second identical run writes nothing", async () => {
    const disk = await sparse(2560 * MIB);
    const first = await cli(installArgs([disk]));
    expect(first.code).toBe(0);
    expect(first.stdout).toContain("Installed as leader-1. Remove the stick and power cycle.\n");
    expect(await verdicts([disk])).toEqual(["liken:complete"]);
    expect(await status()).toMatchObject({ phase: "Installed", reason: "" });
    const gpt = JSON.parse((await run("sfdisk", ["--json", disk])).stdout).partitiontable;
    expect(
      gpt.partitions.map((p: { name: string; start: number; size: number }) => [
        p.name,
        (p.start * 512) / MIB,
        (p.size * 512) / MIB,
      ]),
    ).toEqual([
      ["liken-esp", 1, 256],
      ["liken-a", 257, 256],
      ["liken-b", 513, 256],
      ["liken-journal", 769, 8],
      ["liken-state", 777, 64],
      ["liken-data", 841, 1024],
      ["liken-scratch", 1865, 2560 - 1865 - 1],
    ]);
    const before = await sha256(disk);
    const second = await cli(installArgs([disk]));
    expect(second.code).toBe(0);
    expect(second.stdout).toContain(
      `${disk} already holds leader-1 with release 1.0.0: nothing to do.`,
    );
    expect(await sha256(disk)).toBe(before);
  });

  it("puts slot A's bytes and the boot files where the machine will read them", async () => {
    const disk = await sparse(2560 * MIB);
    expect((await cli(installArgs([disk]))).code).toBe(0);
    const rootfs = await readFile(join(release, "rootfs.img"));
    const slot = Buffer.alloc(rootfs.length);
    const handle = await import("node:fs/promises").then((fs) => fs.open(disk, "r"));
    await handle.read(slot, 0, slot.length, 257 * MIB);
    await handle.close();
    expect(slot.equals(rootfs)).toBe(true);
    const esp = `${disk}@@${MIB}`;
    const entry = (await run("mtype", ["-i", esp, "::/loader/entries/liken-a-1.0.0.conf"])).stdout;
    // The entry names the slot and the verity root hash release.toml carries.
    const toml = await readFile(join(release, "release.toml"), "utf8");
    const rootHash = /^root_hash = "([0-9a-f]{64})"$/m.exec(toml)?.[1];
    const dataBlocks = /^data_blocks = (\d+)$/m.exec(toml)?.[1];
    expect(entry).toMatch(
      new RegExp(
        `^options root=PARTUUID=[0-9a-f-]{36} ro liken\\.slot=a liken\\.verity=${rootHash}:${dataBlocks} console=tty0 console=ttyS0,115200 panic=10$`,
        "m",
      ),
    );
    const loader = (await run("mtype", ["-i", esp, "::/EFI/BOOT/BOOTX64.EFI"])).stdout;
    expect(loader.length).toBeGreaterThan(0);
    const identity = (
      await run("debugfs", ["-R", "cat /identity.json", `${disk}?offset=${777 * MIB}`])
    ).stdout;
    expect(JSON.parse(identity)).toMatchObject({
      cluster: "testcluster",
      machine: "leader-1",
      installedRelease: "1.0.0",
    });
  });

  it("puts a role that does not fit on the system disk onto a second blank disk", async () => {
    const system = await sparse(1536 * MIB);
    const storage = await sparse(2 * GIB);
    expect((await cli(installArgs([system, storage]))).code).toBe(0);
    expect(await verdicts([system, storage])).toEqual(["liken:complete", "liken:complete"]);
    const names = JSON.parse(
      (await run("sfdisk", ["--json", storage])).stdout,
    ).partitiontable.partitions.map((p: { name: string }) => p.name);
    expect(names).toEqual(["liken-data"]);
  });

  it("finishes a two-disk install killed between marking its disks complete", async () => {
    const system = await sparse(1536 * MIB);
    const storage = await sparse(2 * GIB);
    const killed = await cli(installArgs([system, storage]), {
      env: { LIKEN_TEST_KILL_AFTER_COMPLETE: "1", TMPDIR: dir },
    });
    expect(killed.code).toBe("SIGKILL");
    // The storage disk is marked first: the system disk still says the install is unfinished.
    expect(await verdicts([system, storage])).toEqual(["liken:partial", "liken:complete"]);
    const again = await cli(installArgs([system, storage]));
    expect(again.code, again.stderr).toBe(0);
    expect(again.stdout).not.toContain("nothing to do");
    expect(await verdicts([system, storage])).toEqual(["liken:complete", "liken:complete"]);
  });

  it("refuses a disk that holds data and writes nothing", async () => {
    const disk = await foreignDisk();
    const before = await sha256(disk);
    const r = await cli(installArgs([disk]));
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(
      "liken-stick install: no blank disk: every disk holds data or cannot be a target (attach a blank disk; liken never writes a disk that holds data it did not write)\n",
    );
    expect(r.stderr).toMatch(/foreign +signature:ext4@0x438/);
    expect(await sha256(disk)).toBe(before);
    expect(await status()).toMatchObject({ phase: "Failed", reason: "NoEligibleDisk" });
  });

  it("refuses another machine's liken disk, and says to use --wipe", async () => {
    const disk = await sparse(2560 * MIB);
    expect((await cli(installArgs([disk]))).code).toBe(0);
    const before = await sha256(disk);
    const r = await cli([
      "install",
      "--manifest",
      MANIFEST,
      "--as",
      "worker-1",
      "--release",
      release,
      "--status-file",
      join(dir, "s.json"),
      disk,
    ]);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(
      `liken-stick install: no blank disk: ${disk} holds the liken install of testcluster/leader-1 (run it again with --wipe to replace it)\n`,
    );
    expect(await sha256(disk)).toBe(before);
  });

  it.runIf(root)("installs onto a loop device", async () => {
    const file = await sparse(2560 * MIB);
    const loop = (await run("losetup", ["--find", "--show", file])).stdout.trim();
    try {
      const r = await cli(installArgs([loop]));
      expect(withoutWarnings(r.stderr)).toBe("");
      expect(r.code).toBe(0);
      expect(await verdicts([loop])).toEqual(["liken:complete"]);
    } finally {
      await run("losetup", ["--detach", loop]);
    }
  });
});

describe("a broken release", () => {
  async function brokenRelease(
    name: string,
    breakIt: (dir: string) => Promise<void>,
  ): Promise<string> {
    const copy = join(dir, name);
    await run("cp", ["-r", release, copy]);
    await breakIt(copy);
    return copy;
  }

  it.each([
    [
      "a file whose hash is wrong",
      async (d: string) => {
        await writeFile(join(d, "vmlinuz"), "not the kernel that was hashed");
      },
      "ReleaseInvalid",
      /release .* is not usable: vmlinuz has 30 bytes, release\.toml says 65536 \(copy the release again/,
    ],
    [
      "a file that is missing",
      async (d: string) => {
        await rm(join(d, "initrd.img"));
      },
      "ReleaseInvalid",
      /release .* is not usable: initrd\.img is missing/,
    ],
  ])("is refused before any write: %s", async (_, breakIt, reason, message) => {
    const broken = await brokenRelease(`broken-${++counter}`, breakIt);
    const disk = await sparse(2560 * MIB);
    const before = await sha256(disk);
    const r = await cli(installArgs([disk], [], broken));
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(message);
    expect(await status()).toMatchObject({ phase: "Failed", reason });
    expect(await sha256(disk)).toBe(before);
  });

  it("refuses a root filesystem larger than a slot before any write", async () => {
    const big = join(dir, "release-big");
    await makeTestRelease(big, { version: "1.0.0", rootfsSize: 257 * MIB });
    const disk = await sparse(2560 * MIB);
    const before = await sha256(disk);
    const r = await cli(installArgs([disk], [], big));
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(
      /liken-stick install: release 1\.0\.0's root filesystem \(257MiB\) is larger than a slot \(256MiB\) \(raise \[layout\] slot in the manifest, or build a smaller release\)/,
    );
    expect(await status()).toMatchObject({ phase: "Failed", reason: "ReleaseTooLarge" });
    expect(await sha256(disk)).toBe(before);
  }, 60_000);

  it("refuses a release whose version is not the manifest's", async () => {
    const other = join(dir, "release-9");
    await run("cp", ["-r", release, other]);
    await writeFile(
      join(other, "release.toml"),
      (await readFile(join(other, "release.toml"), "utf8")).replace(
        'version = "1.0.0"',
        'version = "9.0.0"',
      ),
    );
    await writeReleaseTomlFor(other, "9.0.0");
    const r = await cli(installArgs([await sparse(2560 * MIB)], [], other));
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(
      "is 9.0.0, but the manifest installs 1.0.0 (give the release the manifest names)",
    );
  });
});

describe("an install killed at any step", () => {
  const steps = [
    "preflight",
    "plan",
    "lock",
    "claim",
    "partition",
    "esp",
    "slot",
    "journal",
    "state",
    "storage",
    "complete",
  ];

  it.each(steps)(
    "at %s leaves blank or partial liken disks that the same install finishes",
    async (step) => {
      const system = await sparse(1536 * MIB);
      const storage = await sparse(2 * GIB);
      const bystander = await foreignDisk();
      const untouched = await sha256(bystander);
      const killed = await cli(installArgs([system, storage, bystander]), {
        env: { LIKEN_TEST_KILL_AT: step, TMPDIR: dir },
      });
      expect(killed.code).toBe("SIGKILL");
      for (const v of await verdicts([system, storage]))
        expect(v).toMatch(/^(blank|liken:partial)$/);
      const again = await cli(installArgs([system, storage, bystander]));
      expect(withoutWarnings(again.stderr)).toBe("");
      expect(again.code).toBe(0);
      expect(await verdicts([system, storage, bystander])).toEqual([
        "liken:complete",
        "liken:complete",
        "foreign",
      ]);
      expect(await sha256(bystander)).toBe(untouched);
    },
  );

  it("part way through the slot write, and finishes on the next run", async () => {
    const disk = await sparse(2560 * MIB);
    const killed = await cli(installArgs([disk]), {
      env: { LIKEN_TEST_KILL_AFTER_BYTES: String(2 * MIB), TMPDIR: dir },
    });
    expect(killed.code).toBe("SIGKILL");
    expect(await verdicts([disk])).toEqual(["liken:partial"]);
    expect((await cli(installArgs([disk]))).code).toBe(0);
    expect(await verdicts([disk])).toEqual(["liken:complete"]);
  });
});

describe("wipe and reinstall as", () => {
  it("replaces a complete install", async () => {
    const disk = await sparse(2560 * MIB);
    expect((await cli(installArgs([disk]))).code).toBe(0);
    const r = await cli([
      "install",
      "--wipe",
      "--manifest",
      MANIFEST,
      "--as",
      "worker-1",
      "--release",
      release,
      "--status-file",
      join(dir, "w.json"),
      disk,
    ]);
    expect(withoutWarnings(r.stderr)).toBe("");
    expect(r.stdout).toContain(`erasing the liken install on ${disk}`);
    const d = JSON.parse((await cli(["disks", "--json", disk])).stdout)[0];
    expect(d.claim).toMatchObject({ cluster: "testcluster", machine: "worker-1", complete: true });
  });

  it("leaves another cluster's disk alone unless the wipe names that cluster", async () => {
    const other = join(dir, "othercluster.toml");
    const text = await readFile(MANIFEST, "utf8");
    await writeFile(other, text.replace(/^cluster = "testcluster"$/m, 'cluster = "othercluster"'));
    const disk = await sparse(2560 * MIB);
    const theirs = await cli([
      "install",
      ...["--manifest", other, "--as", "leader-1", "--release", release],
      ...["--status-file", join(dir, "other.json"), disk],
    ]);
    expect(theirs.code).toBe(0);
    const before = await sha256(disk);

    const refused = await cli(installArgs([disk], ["--wipe"]));
    expect(refused.code).toBe(1);
    expect(withoutWarnings(refused.stderr)).toContain(
      `liken-stick install: no blank disk: ${disk} holds the liken install of othercluster/leader-1, another cluster (attach a blank disk; liken erases another cluster's disk only when --wipe-cluster names it)\n`,
    );
    expect(refused.stderr).not.toContain("use wipe");
    expect(await sha256(disk)).toBe(before);
    expect(await status()).toMatchObject({ phase: "Failed", reason: "DiskNotBlank" });

    const unnamed = await cli(installArgs([disk], ["--wipe-cluster", "othercluster"]));
    expect(unnamed.code).toBe(2);
    expect(withoutWarnings(unnamed.stderr)).toBe(
      "liken-stick install: --wipe-cluster needs --wipe (add --wipe, or leave --wipe-cluster out)\n",
    );
    expect(await sha256(disk)).toBe(before);

    const named = await cli(installArgs([disk], ["--wipe", "--wipe-cluster", "othercluster"]));
    expect(named.code).toBe(0);
    expect(named.stdout).toContain(`erasing the liken install on ${disk}`);
    const d = JSON.parse((await cli(["disks", "--json", disk])).stdout)[0];
    expect(d.claim).toMatchObject({ cluster: "testcluster", machine: "leader-1", complete: true });
  });

  it("finishes over an interrupted wipe and reinstall", async () => {
    const disk = await sparse(2560 * MIB);
    expect((await cli(installArgs([disk]))).code).toBe(0);
    for (const step of ["erase", "claim", "slot"]) {
      const killed = await cli(installArgs([disk], ["--wipe"]), {
        env: { LIKEN_TEST_KILL_AT: step, TMPDIR: dir },
      });
      expect(killed.code).toBe("SIGKILL");
      expect((await verdicts([disk]))[0]).toMatch(/^(blank|liken:partial|liken:complete)$/);
    }
    expect((await cli(installArgs([disk], ["--wipe"]))).code).toBe(0);
    expect(await verdicts([disk])).toEqual(["liken:complete"]);
  });

  it("works when one disk was replaced by a blank one", async () => {
    const system = await sparse(1536 * MIB);
    const storage = await sparse(2 * GIB);
    expect((await cli(installArgs([system, storage]))).code).toBe(0);
    const replacement = await sparse(2 * GIB);
    const r = await cli(installArgs([system, replacement], ["--wipe"]));
    expect(withoutWarnings(r.stderr)).toBe("");
    expect(r.code).toBe(0);
    expect(await verdicts([system, replacement])).toEqual(["liken:complete", "liken:complete"]);
  });

  it("refuses the whole run when a disk in it holds other data, writing nothing", async () => {
    const disk = await sparse(2560 * MIB);
    expect((await cli(installArgs([disk]))).code).toBe(0);
    const foreign = await foreignDisk();
    const before = [await sha256(disk), await sha256(foreign)];
    const r = await cli(installArgs([disk, foreign], ["--wipe"]));
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(
      `--wipe refuses disks holding data liken did not write: ${foreign} (signature:ext4@0x438, nonzero-data:head) (leave those disks out; liken erases only disks it wrote)`,
    );
    expect(await status()).toMatchObject({ phase: "Failed", reason: "DiskNotLiken" });
    expect([await sha256(disk), await sha256(foreign)]).toEqual(before);
  });
});
