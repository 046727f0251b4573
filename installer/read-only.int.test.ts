// Read-only means read-only: an image file without its owner's write bit, or a block device
// the kernel holds read-only, is `ineligible (read-only)` for everyone, root included, and
// no verb writes a byte of it: disks, plan, install, install --wipe.
import { chmod, chown, readFile, rm } from "node:fs/promises";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { cli, NOBODY, nobodysFolder } from "../test/cli.ts";
import { contentDigest, sparseFile } from "../test/disk-files.ts";
import { makeTestRelease } from "../test/release-fixture.ts";
import { run } from "../tools/exec.ts";

const MANIFEST = "test/fixtures/manifests/good/small.toml";
const MIB = 1024 * 1024;
const root = process.getuid?.() === 0;

let dir: string;
let release: string;
let counter = 0;

beforeAll(async () => {
  dir = await nobodysFolder("liken-read-only-");
  release = await makeTestRelease(join(dir, "release-1.0.0"), { version: "1.0.0" });
}, 60_000);
afterAll(() => rm(dir, { recursive: true, force: true }));

// Large enough for the small manifest's layout on one disk.
const disk = () => sparseFile(join(dir, `disk-${++counter}.img`), 2048 * MIB);
const statusFile = () => join(dir, `status-${counter}.json`);

function install(path: string, extra: readonly string[] = []) {
  return cli([
    "install",
    ...["--manifest", MANIFEST, "--as", "leader-1", "--release", release],
    ...["--status-file", statusFile(), ...extra, path],
  ]);
}

async function verdictOf(path: string, unprivileged = false) {
  const r = await cli(["disks", "--json", path], { unprivileged });
  expect(r.code, r.stderr).toBe(0);
  const [d] = JSON.parse(r.stdout) as { verdict: string; reasons: string[] }[];
  return [d?.verdict, d?.reasons];
}

/** Every verb that could write `path` refuses it, and its bytes stay as they were. */
async function expectNothingWrites(path: string): Promise<void> {
  const before = await contentDigest(path);
  const refusal = `no disk can be written: ${path} is read-only (name a disk that may be written, or, if it may be, remove its write protection: chmod u+w on an image file, blockdev --setrw on a block device)\n`;
  const plan = await cli(["plan", "--manifest", MANIFEST, "--as", "leader-1", path]);
  expect(plan.code).toBe(1);
  expect(plan.stderr).toContain(`liken-stick plan: ${refusal}`);
  for (const extra of [[], ["--wipe"]]) {
    const r = await install(path, extra);
    expect(r.code, r.stderr).toBe(1);
    expect(r.stderr).toContain(`liken-stick install: ${refusal}`);
    expect(JSON.parse(await readFile(statusFile(), "utf8"))).toMatchObject({
      phase: "Failed",
      reason: "NoEligibleDisk",
    });
  }
  expect(await contentDigest(path)).toBe(before);
}

// Each case runs several installs and reads its disks whole: minutes on a loaded machine.
describe("a read-only disk", { timeout: 180_000 }, () => {
  it("an image file without write bits is read-only to root as well", async () => {
    const path = await disk();
    await chmod(path, 0o444);
    expect(await verdictOf(path)).toEqual(["ineligible", ["read-only"]]);
    await expectNothingWrites(path);
  });

  it("the owner's write bit decides, not the group's or others'", async () => {
    const path = await disk();
    await chmod(path, 0o466);
    expect(await verdictOf(path)).toEqual(["ineligible", ["read-only"]]);
    await chmod(path, 0o600);
    expect(await verdictOf(path)).toEqual(["blank", []]);
  });

  it("a partial liken install made read-only is neither finished nor wiped", async () => {
    const path = await disk();
    const killed = await cli(
      [
        "install",
        ...["--manifest", MANIFEST, "--as", "leader-1", "--release", release],
        ...["--status-file", statusFile(), path],
      ],
      { env: { LIKEN_TEST_KILL_AT: "slot" } },
    );
    expect(killed.code).toBe("SIGKILL");
    await chmod(path, 0o444);
    const [verdict, reasons] = await verdictOf(path);
    expect(verdict).toBe("ineligible");
    expect(reasons?.[0]).toBe("read-only");
    await expectNothingWrites(path);
  });

  it("is read-only to an operator without root, who owns it", async () => {
    const path = await disk();
    await chown(path, NOBODY.uid, NOBODY.gid);
    expect(await verdictOf(path, true)).toEqual(["blank", []]);
    await chmod(path, 0o444);
    expect(await verdictOf(path, true)).toEqual(["ineligible", ["read-only"]]);
  });

  it.runIf(root)("a loop device the kernel holds read-only, blank or liken", async () => {
    const blank = await disk();
    const installed = await disk();
    expect((await install(installed)).code).toBe(0);
    for (const file of [blank, installed]) {
      const loop = (await run("losetup", ["--find", "--show", "--read-only", file])).stdout.trim();
      try {
        const [verdict, reasons] = await verdictOf(loop);
        expect(verdict).toBe("ineligible");
        expect(reasons).toContain("read-only");
        await expectNothingWrites(loop);
      } finally {
        await run("losetup", ["--detach", loop]);
      }
    }
  });
});
