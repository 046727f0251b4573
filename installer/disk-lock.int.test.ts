// One lock per disk, whatever path names it: a symbolic link and its target, a loop device
// and a link to it, are one disk, and a disk another install is writing is refused as
// DiskBusy with words that say so, never as a disk that holds data.
import { mkdtemp, readFile, rm, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type CliResult, cli, startCli, waitForOutput } from "../test/cli.ts";
import { sparseFile } from "../test/disk-files.ts";
import { makeTestRelease } from "../test/release-fixture.ts";
import { run } from "../tools/exec.ts";

const MANIFEST = "test/fixtures/manifests/good/small.toml";
const MIB = 1024 * 1024;
const root = process.getuid?.() === 0;
const BUSY =
  /is being written by another install \(process \d+\) \(wait for that install to finish, then run this one again if it is still needed\)$/;

let dir: string;
let release: string;
let counter = 0;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "liken-disk-lock-"));
  // 32 MiB of data: an install takes long enough for a second one to meet it.
  release = await makeTestRelease(join(dir, "release-1.0.0"), {
    version: "1.0.0",
    dataBytes: 32 * MIB,
  });
}, 120_000);
afterAll(() => rm(dir, { recursive: true, force: true }));

const disk = () => sparseFile(join(dir, `disk-${++counter}.img`), 2048 * MIB);

// Each install its own status file, so that only the disk's lock stands between them.
function install(path: string, extra: readonly string[] = []) {
  return cli([
    "install",
    ...["--manifest", MANIFEST, "--as", "leader-1", "--release", release],
    ...["--status-file", join(dir, `status-${++counter}.json`), "--json", ...extra, path],
  ]);
}

const lastLine = (r: CliResult) => r.stderr.trimEnd().split("\n").at(-1) ?? "";

/** Of two installs run at once, one installed and the other was refused as DiskBusy. */
function expectOneBusy(results: readonly CliResult[]): void {
  expect(results.map((r) => r.code).sort(), results.map(lastLine).join("\n")).toEqual([0, 1]);
  const loser = results.find((r) => r.code === 1) as CliResult;
  expect(lastLine(loser)).toMatch(BUSY);
  expect(JSON.parse(loser.stdout)).toMatchObject({
    phase: "Failed",
    reason: "DiskBusy",
    error: { reason: "DiskBusy" },
  });
}

/**
 * While an install of `first` holds it (stopped with SIGSTOP once it writes, so the two
 * surely meet), an install of `second`, another name of the same disk, is DiskBusy and
 * writes nothing; the first then finishes.
 */
async function expectBusyWhileInstalling(
  first: string,
  second: string,
  // How the refusal names the disk: a block device by its kernel name, whatever link named it.
  named = second,
): Promise<void> {
  const running = await startCli([
    "install",
    ...["--manifest", MANIFEST, "--as", "leader-1", "--release", release],
    ...["--status-file", join(dir, `status-${++counter}.json`), first],
  ]);
  await waitForOutput(running.stdout, "» writing the liken claim");
  const pid = running.pid as number;
  process.kill(pid, "SIGSTOP");
  try {
    const busy = await install(second);
    expect(busy.code).toBe(1);
    expect(lastLine(busy)).toBe(
      `liken-stick install: ${named} is being written by another install (process ${pid}) (wait for that install to finish, then run this one again if it is still needed)`,
    );
    expect(busy.stderr).not.toContain("attach a blank disk");
    expect(JSON.parse(busy.stdout)).toMatchObject({ phase: "Failed", reason: "DiskBusy" });
  } finally {
    process.kill(pid, "SIGCONT");
  }
  expect((await running.exited).exitCode).toBe(0);
}

describe("one lock per disk", { timeout: 180_000 }, () => {
  it("a symbolic link and its target installed at once: one installs, the other is DiskBusy", async () => {
    const target = await disk();
    const link = join(dir, `link-${counter}.img`);
    await symlink(target, link);
    expectOneBusy(await Promise.all([install(target), install(link)]));
    const disks = JSON.parse((await cli(["disks", "--json", target])).stdout);
    expect(disks[0].reasons).toContain("liken-claim:complete");
  });

  it.runIf(root)("a loop device being installed is DiskBusy by its other name", async () => {
    const file = await disk();
    const loop = (await run("losetup", ["--find", "--show", file])).stdout.trim();
    const link = join(dir, `loop-link-${counter}`);
    await symlink(loop, link);
    try {
      await expectBusyWhileInstalling(loop, link, loop);
    } finally {
      await run("losetup", ["--detach", loop]);
    }
  });

  it("an image file being installed is DiskBusy by its other name", async () => {
    const target = await disk();
    const link = join(dir, `link-${counter}.img`);
    await symlink(target, link);
    await expectBusyWhileInstalling(link, target);
  });

  it("plan and install refuse a disk another install holds, by any of its names", async () => {
    const target = await disk();
    const link = join(dir, `link-${counter}.img`);
    await symlink(target, link);
    // This test's own process is the other install: its pid in the disk's lock file.
    const lockFile = `${target}.liken-lock`;
    await writeFile(lockFile, `${process.pid}\n`);
    const busy = `${link} is being written by another install (process ${process.pid})`;
    try {
      const plan = await cli(["plan", "--manifest", MANIFEST, "--as", "leader-1", link]);
      expect(plan.code).toBe(1);
      expect(lastLine(plan)).toContain(`liken-stick plan: ${busy}`);
      const r = await install(link);
      expect(r.code).toBe(1);
      expect(lastLine(r)).toContain(`liken-stick install: ${busy}`);
      expect(r.stderr).not.toContain("attach a blank disk");
    } finally {
      await rm(lockFile, { force: true });
    }
    // The other install gone, its lock is stale: the next install takes it over.
    await writeFile(lockFile, "999999999\n");
    expect((await install(link)).code).toBe(0);
    await expect(readFile(lockFile)).rejects.toThrow();
  });

  it("refuses one disk named twice, by two paths", async () => {
    const target = await disk();
    const link = join(dir, `link-${counter}.img`);
    await symlink(target, link);
    const r = await cli(["disks", target, link]);
    expect(r.code).toBe(2);
    expect(lastLine(r)).toBe(
      `liken-stick disks: ${target} and ${link} are the same disk (name each disk once)`,
    );
  });
});
