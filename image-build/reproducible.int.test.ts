// Two builds from the same inputs are byte-identical (docs/design.md section 8): fixed GUIDs,
// one timestamp everywhere, sorted archives, no random bytes.
import { createHash } from "node:crypto";
import { createReadStream } from "node:fs";
import { mkdtemp, readdir, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildRelease } from "./release/build-release.ts";
import { buildStick } from "./stick/build-stick.ts";

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "liken-repro-"));
});
afterAll(() => rm(dir, { recursive: true, force: true }));

async function sha256(file: string): Promise<string> {
  const hash = createHash("sha256");
  for await (const chunk of createReadStream(file)) hash.update(chunk as Buffer);
  return hash.digest("hex");
}

async function digests(folder: string): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  for (const name of (await readdir(folder)).sort()) out[name] = await sha256(join(folder, name));
  return out;
}

describe("two builds from the same inputs", () => {
  it("give the same release, file for file, and the same stick image and bmap", async () => {
    for (const n of [1, 2]) {
      await buildRelease({
        version: "1.0.0",
        out: join(dir, `release-${n}`),
        epoch: 1_700_000_000,
        workDir: join(dir, `work-r${n}`),
      });
    }
    const release = await digests(join(dir, "release-1"));
    expect(Object.keys(release)).toEqual([
      "boot-modules.json",
      "initrd.img",
      "release.toml",
      "rootfs.img",
      "systemd-bootx64.efi",
      "vmlinuz",
    ]);
    expect(await digests(join(dir, "release-2"))).toEqual(release);

    for (const n of [1, 2]) {
      await buildStick({
        manifest: "examples/cluster.toml",
        releaseDir: join(dir, "release-1"),
        out: join(dir, `stick-${n}.img`),
        epoch: 1_700_000_000,
        workDir: join(dir, `work-s${n}`),
      });
    }
    expect(await sha256(join(dir, "stick-2.img"))).toBe(await sha256(join(dir, "stick-1.img")));
    expect(await sha256(join(dir, "stick-2.img.bmap"))).toBe(
      await sha256(join(dir, "stick-1.img.bmap")),
    );
  }, 300_000);

  it("give the same arm64 release, stick and ISO, its Node.js's code cache made under emulation", async () => {
    for (const n of [1, 2]) {
      await buildRelease({
        version: "1.0.0",
        arch: "arm64",
        out: join(dir, `arm64-release-${n}`),
        epoch: 1_700_000_000,
        workDir: join(dir, `work-ar${n}`),
      });
    }
    const release = await digests(join(dir, "arm64-release-1"));
    expect(Object.keys(release)).toEqual([
      "boot-modules.json",
      "initrd.img",
      "release.toml",
      "rootfs.img",
      "systemd-bootaa64.efi",
      "vmlinuz",
    ]);
    expect(await digests(join(dir, "arm64-release-2"))).toEqual(release);

    for (const n of [1, 2]) {
      await buildStick({
        manifest: "test/fixtures/manifests/good/small-arm64.toml",
        releaseDir: join(dir, "arm64-release-1"),
        out: join(dir, `arm64-stick-${n}.img`),
        epoch: 1_700_000_000,
        workDir: join(dir, `work-as${n}`),
      });
    }
    expect(await sha256(join(dir, "arm64-stick-2.img"))).toBe(
      await sha256(join(dir, "arm64-stick-1.img")),
    );

    // Its ESP lies inside the ISO 9660 volume (tools/xorriso.ts), not appended.
    for (const n of [1, 2]) {
      await buildStick({
        manifest: "test/fixtures/manifests/good/small-arm64.toml",
        releaseDir: join(dir, "arm64-release-1"),
        out: join(dir, `arm64-${n}.iso`),
        epoch: 1_700_000_000,
        workDir: join(dir, `work-ai${n}`),
      });
    }
    expect(await sha256(join(dir, "arm64-2.iso"))).toBe(await sha256(join(dir, "arm64-1.iso")));
  }, 300_000);
});
