// `disks` and `inspect` on the two members of a mirrored system disk that the real installer
// wrote: each names its place in the mirror and the other member, in JSON and in words.
// Image files have no serial or WWN, so each claim names the other member by its path.
import { mkdtemp, rm, truncate, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Disk } from "../../hardware/disks/index.ts";
import { cli } from "../../test/cli.ts";
import { makeTestRelease } from "../../test/release-fixture.ts";
import type { Inspection } from "./types.ts";

const MIB = 1024 * 1024;

// test/fixtures/manifests/good/small.toml's layout, leader-1's system mirrored.
const MANIFEST = `cluster = "testcluster"

[release]
version = "1.0.0"

[layout]
esp = "256MiB"
slot = "256MiB"
crash_journal = "8MiB"
state = "64MiB"

[[storage]]
role = "scratch"
size = "rest"

[[machines]]
name = "leader-1"
role = "leader"
ports = ["eth0"]
system_disk = { mirror = true }
`;

let dir: string;
let one: string;
let two: string;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "liken-mirror-claim-test-"));
  const release = await makeTestRelease(join(dir, "release-1.0.0"), { version: "1.0.0" });
  const manifest = join(dir, "cluster.toml");
  await writeFile(manifest, MANIFEST);
  [one, two] = [join(dir, "one.img"), join(dir, "two.img")];
  for (const file of [one, two]) {
    await writeFile(file, "");
    await truncate(file, 2560 * MIB);
  }
  const r = await cli([
    "install",
    "--manifest",
    manifest,
    "--as",
    "leader-1",
    "--release",
    release,
    "--status-file",
    join(dir, "status.json"),
    one,
    two,
  ]);
  expect(r.code, r.stderr).toBe(0);
}, 120_000);

afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe("a mirror member's claim", () => {
  it("is in disks --json and inspect --json: its place, the mirror's two disks, the other member", async () => {
    const listed = await cli(["disks", "--json", one, two]);
    expect(listed.code, listed.stderr).toBe(0);
    const [a, b] = JSON.parse(listed.stdout) as Disk[];
    expect(a?.claim?.mirror).toEqual({ member: 1, of: 2, peer: { path: two } });
    expect(b?.claim?.mirror).toEqual({ member: 2, of: 2, peer: { path: one } });
    const inspected = await cli(["inspect", "--json", two]);
    expect(inspected.code, inspected.stderr).toBe(0);
    const i = JSON.parse(inspected.stdout) as Inspection;
    expect(i.claim).toMatchObject({ machine: "leader-1", copies: 2 });
    expect(i.claim.mirror).toEqual({ member: 2, of: 2, peer: { path: one } });
  });

  it("reads in words in disks and inspect", async () => {
    const listed = await cli(["disks", one, two]);
    expect(listed.code, listed.stderr).toBe(0);
    expect(listed.stdout).toContain(
      ` mirror member 1 of 2 of testcluster/leader-1 beside ${two} release 1.0.0, liken-claim:complete`,
    );
    expect(listed.stdout).toContain(
      ` mirror member 2 of 2 of testcluster/leader-1 beside ${one} release 1.0.0, liken-claim:complete`,
    );
    const inspected = await cli(["inspect", one]);
    expect(inspected.code, inspected.stderr).toBe(0);
    expect(inspected.stdout.split("\n")[0]).toBe(
      `${one}  2.5 GiB  liken system disk, mirror member 1 of 2 of testcluster/leader-1 beside ${two}, release 1.0.0, install complete`,
    );
  });
});
