// Wipe and reinstall on the stick's own kernel, which lists the partitions of the old
// install from boot (issue 14: image files on the host have no such list). The first disk
// holds a complete install of leader-1, made on the host; beside it sit someone's ext4 in a
// GPT partition and, in the menu's run, another cluster's complete install. The stick
// erases and reinstalls the first disk, unattended (`liken.wipe=1`) or through the menu's
// Wipe and reinstall as leader-1, and powers off: the first disk then holds a complete
// install with a new install id, and the other disks hold exactly the bytes they held.
import { mkdtemp, readFile, rm, truncate, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, expect, it } from "vitest";
import { cachedRelease, cachedStick } from "../../testing/cached-build.ts";
import { cli } from "../cli.ts";
import { contentDigest, ext4DataDisk } from "../disk-files.ts";
import { expectNewInstall, inspect } from "../inspect-disk.ts";
import { startVm } from "./harness.ts";
import { KEYS, MENU_MANIFEST, menuStick, SerialTerminal } from "./menu-screen.ts";

const MIB = 1024 * 1024;
const GIB = 1024 * MIB;

let dir: string;
let release: string;
let unattendedStick: string;
let otherCluster: string;
let counter = 0;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "liken-qemu-wipe-"));
  release = await cachedRelease({ version: "1.0.0" });
  unattendedStick = await cachedStick({
    manifest: MENU_MANIFEST,
    releaseDir: release,
    append: ["liken.install=leader-1", "liken.wipe=1"],
  });
  otherCluster = join(dir, "othercluster.toml");
  const text = await readFile(MENU_MANIFEST, "utf8");
  await writeFile(
    otherCluster,
    text.replace(/^cluster = "testcluster"$/m, 'cluster = "othercluster"'),
  );
}, 600_000);
afterAll(() => rm(dir, { recursive: true, force: true }));

async function sparse(size: number): Promise<string> {
  const file = join(dir, `disk-${++counter}.img`);
  await writeFile(file, "");
  await truncate(file, size);
  return file;
}

/** A disk holding a complete install of leader-1 of `manifest`'s cluster, and its install id. */
async function installedDisk(
  size: number,
  manifest = MENU_MANIFEST,
): Promise<{ disk: string; installId: string }> {
  const disk = await sparse(size);
  const r = await cli([
    "install",
    ...["--manifest", manifest, "--as", "leader-1", "--release", release],
    ...["--status-file", join(dir, `status-${counter}.json`), disk],
  ]);
  expect(r.code, r.stderr).toBe(0);
  return { disk, installId: (await inspect(disk)).claim.installId };
}

/** Someone's data: a GPT whose one partition, at 1 MiB, holds an ext4 with a file. */
function ext4Disk(): Promise<string> {
  return ext4DataDisk(join(dir, `disk-${++counter}.img`));
}

function seconds(from: number, to: number): string {
  return `${(to - from) / 1000} s`;
}

it("wipes and reinstalls leader-1 unattended (liken.wipe=1), and leaves the ext4 disk alone", async () => {
  const { disk, installId } = await installedDisk(4 * GIB);
  const ext4 = await ext4Disk();
  const before = await contentDigest(ext4);
  const started = Date.now();
  const vm = await startVm({
    stick: unattendedStick,
    disks: [
      { path: disk, bus: "virtio" },
      { path: ext4, bus: "virtio" },
    ],
  });
  try {
    await vm.waitFor(/liken-stick: payload \/dev\/sd\w+ verified/, 180_000);
    const verifiedAt = Date.now();
    await vm.waitFor("erasing the liken install on /dev/vda", 120_000);
    await vm.waitFor(/liken-stick: installed as leader-1/, 480_000);
    const installedAt = Date.now();
    expect((await vm.waitForExit(60_000)).shutdownReason).toBe("guest-shutdown");
    console.log(
      `wipe-reinstall unattended: boot ${seconds(started, verifiedAt)}, install ${seconds(verifiedAt, installedAt)}, total ${seconds(started, Date.now())}`,
    );
  } finally {
    await vm.stop();
  }
  await expectNewInstall(disk, installId);
  expect(await contentDigest(ext4)).toBe(before);
}, 900_000);

it("wipes and reinstalls leader-1 from the menu, and leaves the ext4 disk and another cluster's alone", async () => {
  const stick = await menuStick();
  const { disk, installId } = await installedDisk(4 * GIB);
  const ext4 = await ext4Disk();
  const theirs = (await installedDisk(2560 * MIB, otherCluster)).disk;
  const before = [await contentDigest(ext4), await contentDigest(theirs)];
  const started = Date.now();
  const vm = await startVm({
    stick,
    disks: [
      { path: disk, bus: "virtio" },
      { path: ext4, bus: "virtio" },
      { path: theirs, bus: "virtio" },
    ],
  });
  const term = new SerialTerminal(vm);
  try {
    await vm.waitFor(/liken-stick: payload \/dev\/sd\w+ verified/, 180_000);
    await term.waitFor(["This machine is installed as leader-1", "> Install as leader-1"], 120_000);
    const menuAt = Date.now();
    await term.keys(KEYS.down, KEYS.down);
    await term.waitFor(["> Wipe and reinstall as leader-1"], 30_000);
    await term.keys(KEYS.enter);
    await term.waitFor(
      ["Wipe and reinstall as leader-1 ERASES this disk:", /\/dev\/vda\s+4 GiB/, "> No, back"],
      60_000,
    );
    await term.keys(KEYS.down);
    await term.waitFor(["> Yes, erase and reinstall"], 30_000);
    await term.keys(KEYS.enter);
    await term.waitFor(["To erase /dev/vda and reinstall", "Machine name: _"], 30_000);
    await term.keys("leader-1");
    await term.waitFor(["Machine name: leader-1_"], 30_000);
    await term.keys(KEYS.enter);
    const confirmedAt = Date.now();
    const screen = await term.waitFor(
      ["Installed as leader-1. Remove the stick and power cycle.", "> Power off"],
      480_000,
    );
    expect(screen).toMatch(/done\s+erasing the liken install on \/dev\/vda/);
    const installedAt = Date.now();
    await term.keys(KEYS.enter);
    expect((await vm.waitForExit(120_000)).shutdownReason).toBe("guest-shutdown");
    console.log(
      `wipe-reinstall menu: to the menu ${seconds(started, menuAt)}, the menu to Yes ${seconds(menuAt, confirmedAt)}, install ${seconds(confirmedAt, installedAt)}, total ${seconds(started, Date.now())}`,
    );
  } finally {
    term.stop();
    await vm.stop();
  }
  await expectNewInstall(disk, installId);
  expect([await contentDigest(ext4), await contentDigest(theirs)]).toEqual(before);
}, 900_000);
