// `plan` says what `install` does, because both plan through one planner
// (installer/plan/plan-install.ts): the same refusals in the same words, and the same
// "nothing to write" on a machine that is already installed.
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type CliResult, cli } from "../test/cli.ts";
import { contentDigest, sparseFile } from "../test/disk-files.ts";
import { makeTestRelease } from "../test/release-fixture.ts";
import { run } from "../tools/exec.ts";

const MANIFEST = "test/fixtures/manifests/good/small.toml";
const MIB = 1024 * 1024;

let dir: string;
let release: string;
let counter = 0;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "liken-one-planner-"));
  release = await makeTestRelease(join(dir, "release-1.0.0"), { version: "1.0.0" });
}, 60_000);
afterAll(() => rm(dir, { recursive: true, force: true }));

const disk = (size = 2048 * MIB) => sparseFile(join(dir, `disk-${++counter}.img`), size);
const common = () => ["--manifest", MANIFEST, "--as", "leader-1", "--release", release];
const plan = (args: readonly string[]) => cli(["plan", ...common(), ...args]);
const install = (args: readonly string[]) =>
  cli(["install", ...common(), "--status-file", join(dir, `status-${++counter}.json`), ...args]);
// What follows the verb on the error line: the same for plan and install.
const refusal = (r: CliResult) =>
  r.stderr
    .trimEnd()
    .split("\n")
    .at(-1)
    ?.replace(/^[^:]+: /, "");

describe("plan and install plan alike", { timeout: 180_000 }, () => {
  it("a wipe naming a disk that holds other data: both refuse it, in the same words", async () => {
    const installed = await disk();
    expect((await install([installed])).code).toBe(0);
    const foreign = await disk(1024 * MIB);
    await run("mkfs.ext4", ["-q", "-F", foreign]);
    const before = [await contentDigest(installed), await contentDigest(foreign)];
    const planned = await plan(["--wipe", installed, foreign]);
    const installing = await install(["--wipe", installed, foreign]);
    expect([planned.code, installing.code]).toEqual([1, 1]);
    expect(refusal(planned)).toMatch(/refuses disks holding data liken did not write: /);
    expect(refusal(planned)).toBe(refusal(installing));
    expect([await contentDigest(installed), await contentDigest(foreign)]).toEqual(before);
  });

  it("a machine already installed with this release: both say nothing is written, exit 0", async () => {
    const installed = await disk();
    expect((await install([installed])).code).toBe(0);
    const before = await contentDigest(installed);
    const planned = await plan([installed]);
    expect(planned.code, planned.stderr).toBe(0);
    expect(planned.stdout).toBe(
      `${installed} already holds leader-1 with release 1.0.0: install writes nothing.\n`,
    );
    const json = JSON.parse((await plan(["--json", installed])).stdout);
    expect(json).toMatchObject({ ok: true, done: { path: installed, release: "1.0.0" } });
    const again = await install([installed]);
    expect(again.code).toBe(0);
    expect(again.stdout).toContain("nothing to do");
    expect(await contentDigest(installed)).toBe(before);
  });
});
