// A build says what it does while it runs: `release` names each of its steps on stderr, as
// one line each when stderr is a log (here, a pipe), and stdout holds only its result.
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { cli } from "../test/cli.ts";

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "liken-progress-test-"));
});
afterAll(() => rm(dir, { recursive: true, force: true }));

describe("liken-stick release", () => {
  it("prints each step, numbered, on stderr and only its result on stdout", async () => {
    const out = join(dir, "release-2.0.0");
    const r = await cli(["release", "--version", "2.0.0", "--out", out]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toBe(`Built release 2.0.0 for amd64 in ${out}.\n`);
    expect(r.stderr.match(/^liken-stick release: \[\d\/\d\] .*$/gm)).toEqual([
      "liken-stick release: [1/5] the pinned inputs: Debian packages and Node.js for amd64",
      "liken-stick release: [2/5] building the initramfs: busybox, blkid, dmsetup and the boot path's modules (zstd -22)",
      "liken-stick release: [3/5] building the root: Node.js, the boot agent and its code cache, the NIC drivers",
      "liken-stick release: [4/5] compressing the root into rootfs.img (erofs), with its dm-verity hash tree",
      "liken-stick release: [5/5] writing boot-modules.json and release.toml",
    ]);
    // Nothing on stderr but progress lines: no bar's control characters in a log.
    expect(r.stderr).not.toContain("\r");
    expect(r.stderr.split("\n").filter((l) => l && !l.startsWith("liken-stick release: "))).toEqual(
      [],
    );
  }, 300_000);
});
