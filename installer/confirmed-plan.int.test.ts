// `install --plan FILE`: the install writes the plan `plan --json` printed, or nothing when
// a disk changed since: another disk in its place, another size, data written to it.
import { mkdtemp, readFile, rm, truncate, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { cli } from "../test/cli.ts";
import { contentDigest } from "../test/disk-files.ts";
import { makeTestRelease } from "../test/release-fixture.ts";
import { run } from "../tools/exec.ts";

const MANIFEST = "test/fixtures/manifests/good/small.toml";
const GIB = 1024 ** 3;

let dir: string;
let release: string;
let counter = 0;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "liken-confirmed-plan-"));
  release = await makeTestRelease(join(dir, "release-1.0.0"), { version: "1.0.0" });
}, 60_000);
afterAll(() => rm(dir, { recursive: true, force: true }));

async function sparse(size: number): Promise<string> {
  const file = join(dir, `disk-${++counter}.img`);
  await writeFile(file, "");
  await truncate(file, size);
  return file;
}

async function planFor(disk: string): Promise<{ file: string; installId: string }> {
  const r = await cli([
    "plan",
    "--manifest",
    MANIFEST,
    "--as",
    "leader-1",
    "--release",
    release,
    "--json",
    disk,
  ]);
  expect(r.code).toBe(0);
  const file = join(dir, `plan-${++counter}.json`);
  await writeFile(file, r.stdout);
  return {
    file,
    installId: (JSON.parse(r.stdout) as { layout: { installId: string } }).layout.installId,
  };
}

const install = (plan: string, disk: string) =>
  cli([
    "install",
    "--manifest",
    MANIFEST,
    "--as",
    "leader-1",
    "--release",
    release,
    "--status-file",
    join(dir, `status-${counter}.json`),
    "--plan",
    plan,
    disk,
  ]);

describe("install --plan FILE", () => {
  it("writes the plan it was given, with the plan's install id", async () => {
    const disk = await sparse(2 * GIB);
    const plan = await planFor(disk);
    const r = await install(plan.file, disk);
    expect(r.code, r.stderr).toBe(0);
    const inspected = JSON.parse((await cli(["inspect", "--json", disk])).stdout) as {
      claim: { installId: string; complete: boolean };
    };
    expect(inspected.claim).toMatchObject({ installId: plan.installId, complete: true });
  });

  it("takes a plan whose partitions name their PARTUUID uuid, as plan --json did before", async () => {
    const disk = await sparse(2 * GIB);
    const plan = await planFor(disk);
    const text = await readFile(plan.file, "utf8");
    expect(text).toContain('"partUuid"');
    await writeFile(plan.file, text.replaceAll('"partUuid"', '"uuid"'));
    const r = await install(plan.file, disk);
    expect(r.code, r.stderr).toBe(0);
    const inspected = JSON.parse((await cli(["inspect", "--json", disk])).stdout) as {
      claim: { installId: string; complete: boolean };
    };
    expect(inspected.claim).toMatchObject({ installId: plan.installId, complete: true });
  });

  it("writes nothing when the disk was replaced by one of another size", async () => {
    const disk = await sparse(2 * GIB);
    const plan = await planFor(disk);
    await truncate(disk, 3 * GIB);
    const before = await contentDigest(disk);
    const r = await install(plan.file, disk);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(
      /the disks changed since the plan was confirmed: .*size was 2147483648, now 3221225472 \(review the plan again/,
    );
    expect(await contentDigest(disk)).toBe(before);
    const status = JSON.parse(await readFile(join(dir, `status-${counter}.json`), "utf8"));
    expect(status.reason).toBe("DiskChanged");
  });

  it("writes nothing when someone made a filesystem on the disk since", async () => {
    const disk = await sparse(2 * GIB);
    const plan = await planFor(disk);
    await run("mkfs.ext4", ["-q", "-F", disk]);
    const before = await contentDigest(disk);
    const r = await install(plan.file, disk);
    expect(r.code).toBe(1);
    // The change named as a change, not met as a disk that is no longer blank.
    expect(r.stderr).toContain(
      `liken-stick install: the disks changed since the plan was confirmed: ${disk} was blank, now it is foreign (signature:ext4@0x438, nonzero-data:head) (review the plan again, and confirm the new one)\n`,
    );
    expect(await contentDigest(disk)).toBe(before);
    const status = JSON.parse(await readFile(join(dir, `status-${counter}.json`), "utf8"));
    expect(status.reason).toBe("DiskChanged");
  });

  it("writes nothing when any byte was written to the disk since", async () => {
    const disk = await sparse(2 * GIB);
    const plan = await planFor(disk);
    await run("dd", [
      "if=/dev/urandom",
      `of=${disk}`,
      "bs=4096",
      "count=1",
      "seek=1000",
      "conv=notrunc",
    ]);
    const before = await contentDigest(disk);
    const r = await install(plan.file, disk);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(
      /the disks changed since the plan was confirmed: .* was blank, now it is foreign \(nonzero-data:head\)/,
    );
    expect(await contentDigest(disk)).toBe(before);
  });

  it("refuses a file that holds no plan, before anything is read", async () => {
    const disk = await sparse(2 * GIB);
    const file = join(dir, "not-a-plan.json");
    await writeFile(file, '{"ok": false}');
    const r = await install(file, disk);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("holds no plan");
  });
});
