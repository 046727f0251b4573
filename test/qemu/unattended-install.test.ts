// The stick end to end under OVMF and TCG: it boots, finds its payload, installs a manifest
// machine unattended onto a blank virtio disk and powers off; the disk then boots on its
// own and its release says it is up.
import { copyFile, mkdtemp, rm, truncate, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { cachedRelease, cachedStick } from "../../image-build/cached-build.ts";
import { cli } from "../cli.ts";
import { stopAllVms, Vm } from "./vm.ts";

const MANIFEST = "test/fixtures/manifests/good/small.toml";
let dir: string;
let stick: string;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "liken-qemu-install-"));
  const release = await cachedRelease({ version: "1.0.0" });
  stick = await cachedStick({
    manifest: MANIFEST,
    releaseDir: release,
    append: ["liken.install=leader-1"],
  });
}, 300_000);
afterEach(stopAllVms);
afterAll(() => rm(dir, { recursive: true, force: true }));

async function blankDisk(size: string): Promise<string> {
  const file = join(dir, `disk-${Date.now()}.img`);
  await writeFile(file, "");
  await truncate(file, Number.parseInt(size, 10) * 1024 ** 3);
  return file;
}

describe("the stick", () => {
  it("installs leader-1 unattended, powers off, and the disk then boots liken 1.0.0 from slot A", async () => {
    const disk = await blankDisk("4");
    // The stick's disk image is shared by tests: each VM writes its own copy.
    const stickCopy = join(dir, "stick.img");
    await copyFile(stick, stickCopy);
    const installer = await Vm.start({ stick: stickCopy, disks: [{ path: disk, bus: "virtio" }] });
    await installer.waitFor(/liken-stick: payload \/dev\/sd\w+ verified/, 120_000);
    await installer.waitFor(/liken-stick: installed as leader-1/, 300_000);
    await installer.waitForExit(60_000);

    const inspected = JSON.parse((await cli(["inspect", "--json", disk])).stdout);
    expect(inspected.claim).toMatchObject({
      cluster: "testcluster",
      machine: "leader-1",
      complete: true,
    });
    expect(inspected.slots.a).toEqual({ version: "1.0.0", hashMatches: true });

    const machine = await Vm.start({ disks: [{ path: disk, bus: "virtio" }] });
    expect(await machine.waitFor(/^liken 1\.0\.0 slot a up$/, 120_000)).toBe(
      "liken 1.0.0 slot a up",
    );
    await machine.stop();
    const booted = JSON.parse((await cli(["inspect", "--json", disk])).stdout);
    expect(booted.status).toMatchObject({ phase: "Running", version: "1.0.0", slot: "a" });
  }, 600_000);
});
