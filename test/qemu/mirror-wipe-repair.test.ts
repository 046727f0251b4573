// A mirrored system disk wiped and repaired on the stick's own kernel (issue 42): a wipe
// (liken.wipe=1) erases both members and installs them again; with one member absent it
// refuses, naming the missing member by its serial, and writes nothing. A repair
// refuses a replacement that holds data, writing nothing (unattended, liken.repair=1), and
// takes a blank one into the mirror (the menu's Repair the mirror of leader-1), after which
// the machine boots with both members in step; a copy of a slot with a bad block gives way
// to the other member's.
import { copyFile, mkdtemp, open, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, beforeAll, expect, it } from "vitest";
import { cachedRelease, cachedStick } from "../../testing/cached-build.ts";
import type { VmDisk } from "../../testing/qemu/index.ts";
import { cli } from "../cli.ts";
import { contentDigest, ext4DataDisk, sparseFile } from "../disk-files.ts";
import { condition, inspect } from "./boot-path.ts";
import { startVm, stopAllVms } from "./harness.ts";
import { KEYS, SerialTerminal } from "./menu-screen.ts";

const MANIFEST = "test/fixtures/manifests/good/mirror.toml";
const MIB = 1024 * 1024;
const GIB = 1024 * MIB;
const STICK_MS = 600_000;

let dir: string;
let release: string;
let wipeStick: string;
let repairStick: string;
let menuStick: string;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "liken-qemu-mirror-wipe-"));
  release = await cachedRelease({ version: "1.0.0" });
  const stick = (words: string[]) =>
    cachedStick({
      manifest: MANIFEST,
      releaseDir: release,
      append: ["liken.install=leader-1", ...words],
    });
  wipeStick = await stick(["liken.wipe=1", "liken.then=poweroff"]);
  repairStick = await stick(["liken.repair=1", "liken.then=reboot"]);
  menuStick = await cachedStick({ manifest: MANIFEST, releaseDir: release });
}, 900_000);
afterEach(stopAllVms);
afterAll(() => rm(dir, { recursive: true, force: true }));

const disk = async (name: string, serial: string, size = 4 * GIB): Promise<VmDisk> => ({
  path: await sparseFile(join(dir, `${name}.img`), size),
  bus: "virtio",
  serial,
});

// A fresh copy per boot: the stick records what it installed, and a record would make the
// next boot write nothing.
async function freshStick(from: string, name: string): Promise<string> {
  const copy = join(dir, `${name}-stick.img`);
  await copyFile(from, copy);
  return copy;
}

/** Someone's data: a GPT whose one partition holds an ext4 with a file. */
async function ext4Disk(serial: string): Promise<VmDisk> {
  return { path: await ext4DataDisk(join(dir, "data.img"), "precious"), bus: "virtio", serial };
}

it("wipes both members of a mirror, and refuses a wipe with one member absent, naming it", async () => {
  const [one, two] = [await disk("w1", "LIKEN-W1"), await disk("w2", "LIKEN-W2")];
  const installed = await cli([
    ...["install", "--manifest", MANIFEST, "--as", "leader-1", "--release", release],
    ...["--status-file", join(dir, "w-status.json"), one.path, two.path],
  ]);
  expect(installed.code, installed.stderr).toBe(0);
  const old = (await inspect(one.path)).claim?.installId;

  const wipe = await startVm({
    stick: await freshStick(wipeStick, "w"),
    stickWritable: true,
    disks: [one, two],
  });
  await wipe.waitFor(
    /^liken-stick: installed as leader-1 on \/dev\/vda and \/dev\/vdb \(mirrored\)/,
    STICK_MS,
  );
  await wipe.waitForExit(120_000);
  const [a, b] = [await inspect(one.path), await inspect(two.path)];
  expect(a.claim?.installId).not.toBe(old);
  expect(b.claim?.installId).toBe(a.claim?.installId);
  expect(a.claim?.mirror).toEqual({ member: 1, of: 2, peer: { serial: "LIKEN-W2" } });
  expect(b.claim?.mirror).toEqual({ member: 2, of: 2, peer: { serial: "LIKEN-W1" } });

  // Member 2 is gone; a blank disk sits in its place.
  const blank = await disk("w3", "LIKEN-W3");
  const digests = [await contentDigest(one.path), await contentDigest(blank.path)];
  const alone = await startVm({
    stick: await freshStick(wipeStick, "w-alone"),
    stickWritable: true,
    disks: [one, blank],
  });
  expect(await alone.waitFor("without its other member", STICK_MS)).toContain(
    "wipe and reinstall would erase /dev/vda, mirror member 1 of 2 of testcluster/leader-1, without its other member (LIKEN-W2), which is not here",
  );
  await alone.waitFor("the unattended install as leader-1 did not finish", 60_000);
  await alone.stop();
  expect([await contentDigest(one.path), await contentDigest(blank.path)]).toEqual(digests);
}, 1_800_000);

it("repairs a mirror with a blank disk, never with one that holds data, and boots with both members", async () => {
  const [one, two] = [await disk("r1", "LIKEN-R1"), await disk("r2", "LIKEN-R2")];
  const installed = await cli([
    ...["install", "--manifest", MANIFEST, "--as", "leader-1", "--release", release],
    ...["--status-file", join(dir, "r-status.json"), one.path, two.path],
  ]);
  expect(installed.code, installed.stderr).toBe(0);
  const lost = await inspect(two.path);

  const data = await ext4Disk("LIKEN-DATA");
  const digests = [await contentDigest(one.path), await contentDigest(data.path)];
  const refused = await startVm({
    stick: await freshStick(repairStick, "r-data"),
    stickWritable: true,
    disks: [one, data],
  });
  expect(await refused.waitFor("no blank disk can take member 2", STICK_MS)).toContain(
    "no blank disk can take member 2 of the mirror of testcluster/leader-1: /dev/vdb foreign",
  );
  await refused.waitFor("the unattended install as leader-1 did not finish", 60_000);
  await refused.stop();
  expect([await contentDigest(one.path), await contentDigest(data.path)]).toEqual(digests);

  // The menu's Repair the mirror of leader-1 takes the blank disk; then the machine boots
  // from its disks alone.
  const blank = await disk("r3", "LIKEN-R3");
  const stickVm = await startVm({ stick: menuStick, disks: [one, blank] });
  const term = new SerialTerminal(stickVm);
  try {
    await term.waitFor(
      ["This machine is installed as leader-1", "> Install as leader-1"],
      STICK_MS,
    );
    await term.keys(KEYS.down, KEYS.down);
    await term.waitFor(["> Repair the mirror of leader-1"], 30_000);
    await term.keys(KEYS.enter);
    await term.waitFor(["/dev/vdb (blank, 4 GiB", "> No, back to the menu"], 120_000);
    await term.keys(KEYS.down);
    await term.waitFor(["> Yes, repair the mirror"], 30_000);
    await term.keys(KEYS.enter);
    await term.waitFor(["The mirror of leader-1 is whole again.", "> Power off"], 300_000);
    await term.keys(KEYS.enter);
    expect((await stickVm.waitForExit(120_000)).shutdownReason).toBe("guest-shutdown");
  } finally {
    term.stop();
    await stickVm.stop();
  }
  const vm = await startVm({ disks: [one, blank] });
  expect(await vm.waitFor(/^liken 1\.0\.0 slot a up$/, 300_000)).toBe("liken 1.0.0 slot a up");
  await vm.stop();
  const [a, c] = [await inspect(one.path), await inspect(blank.path)];
  expect(c.claim?.mirror).toEqual({ member: 2, of: 2, peer: { serial: "LIKEN-R1" } });
  expect(a.claim?.mirror).toEqual({ member: 1, of: 2, peer: { serial: "LIKEN-R3" } });
  expect(c.partitions.map((p) => p.partUuid)).toEqual(lost.partitions.map((p) => p.partUuid));
  expect(condition(a, "SystemDiskMirrored")).toMatchObject({
    status: "True",
    reason: "BothMembers",
  });
  expect(c.slots.a).toEqual({ version: "1.0.0", hashMatches: true });
}, 1_800_000);

it("boots the other member's copy of a slot that has a bad block", async () => {
  const [one, two] = [await disk("b1", "LIKEN-B1"), await disk("b2", "LIKEN-B2")];
  const installed = await cli([
    ...["install", "--manifest", MANIFEST, "--as", "leader-1", "--release", release],
    ...["--status-file", join(dir, "b-status.json"), one.path, two.path],
  ]);
  expect(installed.code, installed.stderr).toBe(0);
  // One byte of member 1's slot A changed in the middle of its root: its hash tree no longer
  // agrees there, and nothing reads that block before the root is in use.
  const slotA = (await inspect(one.path)).partitions.find((p) => p.label === "liken-a");
  const at = (slotA?.start ?? 0) + 8 * MIB + 123;
  const file = await open(one.path, "r+");
  const byte = Buffer.alloc(1);
  await file.read(byte, 0, 1, at);
  byte[0] = (byte[0] as number) ^ 0xff;
  await file.write(byte, 0, 1, at);
  await file.close();

  const vm = await startVm({ disks: [one, two] });
  expect(await vm.waitFor("booting the copy on", 300_000)).toBe(
    "liken: slot a (/dev/vda2) does not verify: a block of it does not match the release's hash tree; booting the copy on /dev/vdb2",
  );
  expect(await vm.waitFor(/^liken 1\.0\.0 slot a up$/, 300_000)).toBe("liken 1.0.0 slot a up");
}, 900_000);
