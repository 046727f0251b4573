// An operator without root installs an image file they own: the status document goes
// beside the file, a status that cannot be written never hides the install's own refusal
// and stops the install before it writes a byte, and two installs never share a status.
// Every install here runs as nobody.
import { chmod, chown, copyFile, mkdir, readdir, readFile, rm } from "node:fs/promises";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { cli, NOBODY, nobodysFolder } from "../test/cli.ts";
import { contentDigest, sparseFile } from "../test/disk-files.ts";
import { makeTestRelease } from "../test/release-fixture.ts";

// Copied beside the disks: nobody may not read the checkout (a clone under /root).
const SMALL = "test/fixtures/manifests/good/small.toml";
const MIB = 1024 * 1024;

let dir: string;
let manifest: string;
let release: string;
// A status file in a folder only root may write: an unprivileged install cannot write it.
let rootsStatus: string;
let counter = 0;

beforeAll(async () => {
  dir = await nobodysFolder("liken-without-root-");
  manifest = join(dir, "small.toml");
  await copyFile(SMALL, manifest);
  release = await makeTestRelease(join(dir, "release-1.0.0"), { version: "1.0.0" });
  await mkdir(join(dir, "roots"), { mode: 0o755 });
  rootsStatus = join(dir, "roots", "install-status.json");
}, 60_000);
afterAll(() => rm(dir, { recursive: true, force: true }));

/** A blank image file of nobody's, large enough for the small manifest's layout. */
async function nobodysDisk(): Promise<string> {
  const path = await sparseFile(join(dir, `disk-${++counter}.img`), 2048 * MIB);
  await chown(path, NOBODY.uid, NOBODY.gid);
  return path;
}

function install(path: string, extra: readonly string[] = []) {
  return cli(
    [
      "install",
      ...["--manifest", manifest, "--as", "leader-1", "--release", release],
      ...extra,
      path,
    ],
    { unprivileged: true },
  );
}

// The small manifest's 256 MiB slot earns a warning on every run.
const lastLine = (stderr: string) => stderr.trimEnd().split("\n").at(-1);

describe("an install without root", { timeout: 120_000 }, () => {
  it("installs an image file its user owns, the status document beside it", async () => {
    const path = await nobodysDisk();
    const r = await install(path);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain("Installed as leader-1.");
    const status = JSON.parse(await readFile(`${path}.install-status.json`, "utf8"));
    expect(status).toMatchObject({ phase: "Installed", reason: "", disks: [path] });
    // Nothing else is left beside it: no lock of the disk or of the status.
    const left = (await readdir(dir)).filter((f) => f.startsWith(`disk-${counter}.`));
    expect(left.sort()).toEqual([`disk-${counter}.img`, `disk-${counter}.img.install-status.json`]);
    const disks = await cli(["disks", "--json", path], { unprivileged: true });
    expect(JSON.parse(disks.stdout)[0].reasons).toContain("liken-claim:complete");
  });

  it("says a read-only disk is read-only, not that the status cannot be written", async () => {
    const path = await nobodysDisk();
    await chmod(path, 0o444);
    const before = await contentDigest(path);
    const r = await install(path, ["--status-file", rootsStatus]);
    expect(r.code).toBe(1);
    expect(lastLine(r.stderr)).toBe(
      `liken-stick install: no disk can be written: ${path} is read-only (name a disk that may be written, or, if it may be, remove its write protection: chmod u+w on an image file, blockdev --setrw on a block device)`,
    );
    expect(await contentDigest(path)).toBe(before);
  });

  it("stops before the first write when its status cannot be written, and says what to do", async () => {
    const path = await nobodysDisk();
    const before = await contentDigest(path);
    const r = await install(path, ["--status-file", rootsStatus, "--json"]);
    expect(r.code).toBe(1);
    expect(lastLine(r.stderr)).toBe(
      `liken-stick install: the install's status cannot be written to ${rootsStatus}: this user may not write ${dir}/roots (give --status-file a file in a folder this user may write)`,
    );
    // --json prints the status document all the same, on stdout.
    expect(JSON.parse(r.stdout)).toMatchObject({ phase: "Failed", reason: "PermissionDenied" });
    expect(await contentDigest(path)).toBe(before);
  });

  it("two installs of two files at once: each its own status, beside its disk", async () => {
    const [a, b] = [await nobodysDisk(), await nobodysDisk()];
    const results = await Promise.all([install(a), install(b)]);
    for (const r of results) expect(r.code, r.stderr).toBe(0);
    for (const path of [a, b]) {
      const status = JSON.parse(await readFile(`${path}.install-status.json`, "utf8"));
      expect(status).toMatchObject({ phase: "Installed", disks: [path] });
    }
  });

  it("two installs of one file at once: one installs, the other is refused and writes no status", async () => {
    const path = await nobodysDisk();
    const results = await Promise.all([install(path, ["--json"]), install(path, ["--json"])]);
    const codes = results.map((r) => r.code).sort();
    expect(codes).toEqual([0, 1]);
    const loser = results.find((r) => r.code === 1);
    expect(JSON.parse(loser?.stdout ?? "").error).toMatchObject({ reason: "DiskBusy" });
    const status = JSON.parse(await readFile(`${path}.install-status.json`, "utf8"));
    expect(status).toMatchObject({ phase: "Installed", reason: "" });
  });
});
