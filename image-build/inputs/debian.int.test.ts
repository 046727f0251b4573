import { createHash } from "node:crypto";
import { chmod, mkdir, mkdtemp, readdir, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { debFileName, parsePolicy } from "../../tools/apt.ts";
import { fetchDebs, type LockedDeb, packagesLockPath, readPackagesLock } from "./debian.ts";

let dir: string;
const savedPath = process.env.PATH;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "liken-debian-test-"));
  // A stand-in apt-get first on PATH: writes "bogus" for every name=version it is given.
  await mkdir(join(dir, "bin"));
  await writeFile(
    join(dir, "bin", "apt-get"),
    `#!/bin/sh
[ -n "$FAKE_APT_FAIL" ] && { echo "E: fake apt-get refuses" >&2; exit 100; }
for a in "$@"; do case "$a" in *=*) n=\${a%%=*}; v=\${a#*=}; printf bogus > "\${n}_\${v}_amd64.deb";; esac; done
`,
  );
  await chmod(join(dir, "bin", "apt-get"), 0o755);
  process.env.PATH = `${join(dir, "bin")}:${savedPath}`;
});
afterAll(async () => {
  process.env.PATH = savedPath;
  delete process.env.FAKE_APT_FAIL;
  await rm(dir, { recursive: true, force: true });
});

const sha = (text: string) => createHash("sha256").update(text).digest("hex");
const entry = (over: Partial<LockedDeb> = {}): LockedDeb => ({
  name: "x",
  version: "1",
  arch: "amd64",
  filename: "x_1_amd64.deb",
  sha256: sha("bogus"),
  size: 5,
  ...over,
});

describe("fetchDebs", () => {
  it("downloads what the cache lacks and keeps it", async () => {
    const cache = join(dir, "cache1");
    const paths = await fetchDebs([entry()], cache);
    expect(paths.get("x")).toBe(join(cache, "x_1_amd64.deb"));
    process.env.FAKE_APT_FAIL = "1"; // a warm cache never calls apt-get
    try {
      expect((await fetchDebs([entry()], cache)).get("x")).toBe(join(cache, "x_1_amd64.deb"));
    } finally {
      delete process.env.FAKE_APT_FAIL;
    }
  });

  it("refuses bytes that differ from the lock, naming the package, both hashes and the fix", async () => {
    const cache = join(dir, "cache2");
    const want = "0".repeat(64);
    await expect(fetchDebs([entry({ sha256: want })], cache)).rejects.toThrow(
      `the Debian package x 1 has sha256 ${sha("bogus")} (5 bytes), but image-build/packages.lock.json pins sha256 ${want} (5 bytes) (the mirror serves other bytes for this version: check the mirror in /etc/apt/sources.list; to accept what it serves now, run npx tsx scripts/lock-packages.ts and review the lock file's diff)`,
    );
    expect(await readdir(cache)).toEqual([]); // nothing unverified stays in the cache
  });

  it("says what to do when apt-get cannot download", async () => {
    process.env.FAKE_APT_FAIL = "1";
    try {
      await expect(fetchDebs([entry({ version: "2" })], join(dir, "cache3"))).rejects.toThrow(
        "apt-get could not download x=2: E: fake apt-get refuses (check the Debian mirror and run apt-get update; if the mirror no longer offers these versions, run npx tsx scripts/lock-packages.ts)",
      );
    } finally {
      delete process.env.FAKE_APT_FAIL;
    }
  });
});

describe("apt output", () => {
  it("reads candidates from apt-cache policy, (none) and unknown names as undefined", () => {
    const text = `busybox-static:
  Installed: 1:1.35.0-4+deb12u1+b1
  Candidate: 1:1.35.0-4+deb12u1+b1
  Version table:
 *** 1:1.35.0-4+deb12u1+b1 500
        500 http://deb.debian.org/debian bookworm/main amd64 Packages
linux-image-6.1.0-57-amd64:
  Installed: (none)
  Candidate: 6.1.192-3
  Version table:
     6.1.192-3 500
gone:
  Installed: (none)
  Candidate: (none)
  Version table:
`;
    expect(
      parsePolicy(text, ["busybox-static", "linux-image-6.1.0-57-amd64", "gone", "nope"]),
    ).toEqual(
      new Map([
        ["busybox-static", "1:1.35.0-4+deb12u1+b1"],
        ["linux-image-6.1.0-57-amd64", "6.1.192-3"],
        ["gone", undefined],
        ["nope", undefined],
      ]),
    );
  });

  it("names files as apt-get download does", () => {
    expect(debFileName("busybox-static", "1:1.35.0-4+deb12u1+b1", "amd64")).toBe(
      "busybox-static_1%3a1.35.0-4+deb12u1+b1_amd64.deb",
    );
  });
});

describe("packages.lock.json and packages.arm64.lock.json", () => {
  it.each(["amd64", "arm64"] as const)(
    "%s's is sorted by name, one entry a package, each with a hash and a size",
    async (arch) => {
      const lock = await readPackagesLock(packagesLockPath(arch));
      const names = lock.map((e) => e.name);
      expect(names).toEqual([...names].sort());
      expect(new Set(names).size).toBe(names.length);
      for (const e of lock) {
        expect(e.sha256).toMatch(/^[0-9a-f]{64}$/);
        expect(e.size).toBeGreaterThan(0);
        expect(e.filename).toBe(debFileName(e.name, e.version, e.arch));
      }
      expect(names.filter((n) => n.startsWith("linux-image-"))).toHaveLength(1);
    },
  );
});
