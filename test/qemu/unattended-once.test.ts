// An unattended stick left in installs once (issue 14). Built with liken.install=leader-1
// and liken.then=reboot, it installs onto a blank virtio disk, records the install on its
// payload, points BootNext at the disk and reboots: the disk boots liken with the stick still
// first in the boot order. Reset with the stick still in, the stick boots, finds its install
// on the disk, writes nothing and boots the disk again.
import { copyFile, mkdtemp, open, rm, truncate, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, beforeAll, expect, it } from "vitest";
import { parseGpt } from "../../formats/gpt.ts";
import { cachedRelease, cachedStick } from "../../testing/cached-build.ts";
import { readFatFile } from "../../tools/mtools.ts";
import { cli } from "../cli.ts";
import { stopAllVms, Vm } from "./vm.ts";

const MANIFEST = "test/fixtures/manifests/good/small.toml";
const UP = /^liken 1\.0\.0 slot a up$/;
let dir: string;
let stick: string;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "liken-qemu-once-"));
  const release = await cachedRelease({ version: "1.0.0" });
  stick = await cachedStick({
    manifest: MANIFEST,
    releaseDir: release,
    append: ["liken.install=leader-1", "liken.then=reboot"],
  });
}, 300_000);
afterEach(stopAllVms);
afterAll(() => rm(dir, { recursive: true, force: true }));

it("installs once, boots the disk with the stick still in, and after a reset writes nothing and boots the disk again", async () => {
  const started = Date.now();
  const disk = join(dir, "disk.img");
  await writeFile(disk, "");
  await truncate(disk, 4 * 1024 ** 3);
  // The stick keeps what the guest writes (its record of installs) across the reboots.
  const stickCopy = join(dir, "stick.img");
  await copyFile(stick, stickCopy);
  const vm = await Vm.start({
    stick: stickCopy,
    stickWritable: true,
    disks: [{ path: disk, bus: "virtio" }],
    relaunchOnReboot: true,
  });

  await vm.waitFor(/liken-stick: payload \/dev\/sd\w+ verified/, 180_000);
  const installed = await vm.waitFor(
    /liken-stick: installed as leader-1 on \/dev\/vda, install /,
    300_000,
  );
  const installId = /install ([0-9a-f-]{36})$/.exec(installed)?.[1];
  expect(installId).toBeDefined();
  await vm.waitFor(`liken-stick: recorded install ${installId} in /payload/installed.json`, 30_000);
  await vm.waitFor(/liken-stick: the firmware boots \/dev\/vda next \(Boot[0-9A-F]{4}\)$/, 30_000);
  // The reboot starts QEMU again with the stick still first: BootNext picks the disk.
  expect(await vm.waitFor(UP, 240_000)).toBe("liken 1.0.0 slot a up");
  expect(vm.boots).toBe(2);
  const firstBoot = Date.now();

  await vm.reset();
  await vm.waitFor(/liken-stick: payload \/dev\/sd\w+ verified/, 180_000);
  expect(await vm.waitFor(/liken-stick: this machine already holds/, 120_000)).toBe(
    `liken-stick: this machine already holds install ${installId} (leader-1) from this stick; nothing written; booting it`,
  );
  await vm.waitFor(/liken-stick: the firmware boots \/dev\/vda next/, 30_000);
  expect(await vm.waitFor(UP, 240_000)).toBe("liken 1.0.0 slot a up");
  expect(vm.boots).toBe(4);
  // Two stick boots, one install: the second one never reached the installer's steps.
  const count = (text: string) => vm.console().split(text).length - 1;
  expect(count("liken-stick: unattended install as leader-1")).toBe(2);
  expect(count("» verifying the release")).toBe(1);
  expect(count("» writing the liken claim")).toBe(1);
  await vm.stop();

  const inspected = JSON.parse((await cli(["inspect", "--json", disk])).stdout);
  expect(inspected.claim).toMatchObject({
    cluster: "testcluster",
    machine: "leader-1",
    installId,
    complete: true,
  });
  expect(inspected.slots.a).toEqual({ version: "1.0.0", hashMatches: true });

  const record = JSON.parse((await readPayloadFile(stickCopy, "installed.json")) ?? "{}");
  expect(record.installs).toEqual([
    expect.objectContaining({ installId, machine: "leader-1", release: "1.0.0" }),
  ]);
  console.log(
    `unattended-once: install and first disk boot ${(firstBoot - started) / 1000} s, total ${(Date.now() - started) / 1000} s`,
  );
}, 900_000);

async function readPayloadFile(image: string, path: string): Promise<string | undefined> {
  const head = Buffer.alloc(1024 * 1024);
  const handle = await open(image);
  try {
    await handle.read(head, 0, head.length, 0);
  } finally {
    await handle.close();
  }
  const payload = parseGpt(head)?.entries.find((e) => e.name === "liken-stick-payload");
  if (!payload) throw new Error(`${image} has no payload partition`);
  return readFatFile(image, payload.start, path);
}
