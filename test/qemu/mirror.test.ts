// A mirrored system disk (issue 42) on its own kernel: an unattended stick installs leader-1
// of mirror.toml on two blank virtio disks, leaving a third that holds an ext4 byte for byte,
// and the machine boots with SystemDiskMirrored True on both members. With member 1 pulled
// out, the firmware boots member 2 alone, which says member 1 is missing by its serial. With
// member 1 back, it boots first, finds itself behind member 2, is brought up to date and
// reboots, and the two are in step again; with member 2 pulled out, member 1 boots alone
// and names it. A staged release, its trial's counter and its bless reach both members; an
// update made with member 1 gone, and a fallback from one that fails its health check,
// reach member 1 when it returns.
import { copyFile, mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, beforeAll, expect, it } from "vitest";
import { cachedRelease, cachedStick } from "../../testing/cached-build.ts";
import type { VmDisk } from "../../testing/qemu/index.ts";
import { cli } from "../cli.ts";
import { contentDigest, ext4DataDisk, sparseFile } from "../disk-files.ts";
import { condition, inspect, updateMedium } from "./boot-path.ts";
import { startVm, stopAllVms, type Vm } from "./harness.ts";

const MANIFEST = "test/fixtures/manifests/good/mirror.toml";
const MIB = 1024 * 1024;
const GIB = 1024 * MIB;
const UP = /^liken 1\.0\.0 slot a up$/;
const BOOT_MS = 300_000;

let dir: string;
let stick: string;
let v1: string;
let v2: string;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "liken-qemu-mirror-"));
  v1 = await cachedRelease({ version: "1.0.0" });
  v2 = await cachedRelease({ version: "2.0.0" });
  stick = await cachedStick({
    manifest: MANIFEST,
    releaseDir: v1,
    append: ["liken.install=leader-1", "liken.then=reboot"],
  });
}, 600_000);
afterEach(stopAllVms);
afterAll(() => rm(dir, { recursive: true, force: true }));

/** Ends a VM whose boot is complete (the agent unmounted what it wrote), keeping its variables. */
async function powerOff(vm: Vm, name: string): Promise<string> {
  await vm.qmp.execute("quit");
  await vm.waitForExit(30_000);
  const vars = join(dir, `${name}.vars.fd`);
  await copyFile(vm.varsFile, vars);
  await vm.stop();
  return vars;
}

/** Two blank disks with leader-1 installed mirrored from 1.0.0 on the host, as `install` leaves them. */
async function installedMirror(name: string): Promise<[VmDisk, VmDisk]> {
  const disks = [1, 2].map((n) => ({
    path: join(dir, `${name}-m${n}.img`),
    bus: "virtio" as const,
    serial: `LIKEN-${name.toUpperCase()}-M${n}`,
  }));
  for (const d of disks) await sparseFile(d.path, 4 * GIB);
  const result = await cli([
    ...["install", "--manifest", MANIFEST, "--as", "leader-1", "--release", v1],
    ...["--status-file", join(dir, `${name}-install-status.json`)],
    ...disks.map((d) => d.path),
  ]);
  expect(result.code, result.stderr).toBe(0);
  return disks as [VmDisk, VmDisk];
}

const entryNames = async (disk: VmDisk) =>
  (await inspect(disk.path)).entries.map((e) => e.fileName);

async function mirrored(disk: string) {
  return condition(await inspect(disk), "SystemDiskMirrored");
}

it("installs leader-1 mirrored unattended, boots from either member, and brings a member that was gone up to date", async () => {
  const one: VmDisk = {
    path: await sparseFile(join(dir, "m1.img"), 4 * GIB),
    bus: "virtio",
    serial: "LIKEN-M1",
  };
  const two: VmDisk = {
    path: await sparseFile(join(dir, "m2.img"), 4 * GIB),
    bus: "virtio",
    serial: "LIKEN-M2",
  };
  const data: VmDisk = {
    path: await ext4DataDisk(join(dir, "data.img"), "precious"),
    bus: "virtio",
    serial: "LIKEN-DATA",
  };
  const before = await contentDigest(data.path);
  const stickCopy = join(dir, "stick.img");
  await copyFile(stick, stickCopy);

  const vm = await startVm({
    stick: stickCopy,
    stickWritable: true,
    disks: [one, two, data],
    relaunchOnReboot: true,
  });
  await vm.waitFor(
    /^liken-stick: installed as leader-1 on \/dev\/vda and \/dev\/vdb \(mirrored\)/,
    600_000,
  );
  await vm.waitFor(
    "liken: this boot is mirror member 1; mirror member 2 (serial LIKEN-M2) is on vdb",
    BOOT_MS,
  );
  expect(await vm.waitFor(UP, BOOT_MS)).toBe("liken 1.0.0 slot a up");
  const installed = await powerOff(vm, "installed");
  expect(await contentDigest(data.path)).toBe(before);
  for (const member of [one, two]) {
    const seen = await inspect(member.path);
    expect(seen.slots.a).toEqual({ version: "1.0.0", hashMatches: true });
    expect(condition(seen, "SystemDiskMirrored")).toMatchObject({
      status: "True",
      reason: "BothMembers",
      message: "the system is on mirror members 1 and 2; this boot came from member 1",
    });
  }

  // Member 1 pulled out: the firmware's second entry boots member 2.
  const alone = await startVm({ disks: [two, data], varsFrom: installed, relaunchOnReboot: true });
  await alone.waitFor(
    "liken: mirror member 1 (serial LIKEN-M1) is missing: member 2 runs alone",
    BOOT_MS,
  );
  expect(await alone.waitFor(UP, BOOT_MS)).toBe("liken 1.0.0 slot a up");
  const degraded = await powerOff(alone, "degraded");
  expect(await mirrored(two.path)).toMatchObject({
    status: "False",
    reason: "MemberMissing",
    message:
      "mirror member 1 (serial LIKEN-M1) is missing: the machine runs from member 2 alone; put the disk back, or replace it with a blank disk and choose Repair the mirror of leader-1 on the stick's menu (or boot the stick with liken.repair=1)",
  });
  // Member 1 was not there to be written: it still says what the first boot wrote.
  expect((await mirrored(one.path))?.status).toBe("True");

  // Member 1 back, first in the boot order: behind member 2, it is brought up and reboots.
  const back = await startVm({
    disks: [one, two, data],
    varsFrom: degraded,
    relaunchOnReboot: true,
  });
  await back.waitFor(
    /^liken: mirror: member 1 was behind member 2 \(generation \d+ < \d+\): brought up to date, rebooting$/,
    BOOT_MS,
  );
  expect(await back.waitFor(UP, BOOT_MS)).toBe("liken 1.0.0 slot a up");
  expect(back.boots).toBe(2);
  const inStep = await powerOff(back, "back");
  for (const member of [one, two])
    expect(await mirrored(member.path)).toMatchObject({ status: "True", reason: "BothMembers" });

  // Member 2 pulled out: member 1 boots alone and names member 2 by its serial.
  const first = await startVm({ disks: [one, data], varsFrom: inStep, relaunchOnReboot: true });
  await first.waitFor(
    "liken: mirror member 2 (serial LIKEN-M2) is missing: member 1 runs alone",
    BOOT_MS,
  );
  expect(await first.waitFor(UP, BOOT_MS)).toBe("liken 1.0.0 slot a up");
  await powerOff(first, "first-alone");
  expect(await mirrored(one.path)).toMatchObject({ status: "False", reason: "MemberMissing" });
  expect((await mirrored(one.path))?.message).toContain(
    "mirror member 2 (serial LIKEN-M2) is missing",
  );
  expect(await contentDigest(data.path)).toBe(before);
}, 1_800_000);

it("stages 2.0.0 on both members, carries its trial's counter rename to the other ESP, and blesses it on both", async () => {
  const medium: VmDisk = { path: await updateMedium(dir, "2.0.0", v2), bus: "virtio" };

  // A power loss in the trial, once the boot made the two ESPs equal: the counter that
  // systemd-boot renamed on member 1's ESP is on member 2's too.
  const [one, two] = await installedMirror("cut");
  const cut = await startVm({ disks: [one, two, medium], relaunchOnReboot: true });
  await cut.waitFor("liken: staging 2.0.0 into slot b", BOOT_MS);
  await cut.waitFor("liken: booting 2.0.0 from slot b as its one trial", BOOT_MS);
  // Generations 1 and 2 were staging's and the reboot's status; 3 is this boot's, before the trial.
  await cut.waitFor("liken: mirror: member 2 is in step with member 1 (generation 3)", BOOT_MS);
  await cut.qmp.execute("quit");
  await cut.waitForExit(30_000);
  await cut.stop();
  for (const member of [one, two]) {
    expect(await entryNames(member)).toEqual(["liken-a-1.0.0.conf", "liken-b-2.0.0+0-1.conf"]);
    expect((await inspect(member.path)).slots.b).toEqual({ version: "2.0.0", hashMatches: true });
  }

  // The trial passes: the bless is on both ESPs.
  const [three, four] = await installedMirror("bless");
  const vm = await startVm({ disks: [three, four, medium], relaunchOnReboot: true });
  await vm.waitFor("liken: trial passed: 2.0.0 in slot b is the proven release", BOOT_MS);
  await vm.waitFor(/^liken 2\.0\.0 slot b up$/, BOOT_MS);
  await powerOff(vm, "blessed");
  for (const member of [three, four]) {
    expect(await entryNames(member)).toEqual(["liken-a-1.0.0.conf", "liken-b-2.0.0.conf"]);
    const seen = await inspect(member.path);
    expect(seen.slots).toEqual({
      a: { version: "1.0.0", hashMatches: true },
      b: { version: "2.0.0", hashMatches: true },
    });
    expect(condition(seen, "SystemDiskMirrored")?.status).toBe("True");
  }
}, 1_800_000);

it("updates to 2.0.0 with member 1 gone, and brings member 1 up to it when it returns", async () => {
  const medium: VmDisk = {
    path: await updateMedium(dir, "2.0.0", v2, { name: "medium-gone" }),
    bus: "virtio",
  };
  const [one, two] = await installedMirror("gone");
  const alone = await startVm({ disks: [two, medium], relaunchOnReboot: true });
  await alone.waitFor(
    /^liken: mirror member 1 \(\S+gone-m1\.img at the install\) is missing: member 2 runs alone$/,
    BOOT_MS,
  );
  await alone.waitFor("liken: trial passed: 2.0.0 in slot b is the proven release", BOOT_MS);
  await alone.waitFor(/^liken 2\.0\.0 slot b up$/, BOOT_MS);
  await powerOff(alone, "gone");
  expect(await entryNames(one)).toEqual(["liken-a-1.0.0.conf"]);

  // Member 1 back, first on the bus: it boots 1.0.0, finds member 2 ahead, copies 2.0.0 into
  // its slot b and reboots into it.
  const back = await startVm({ disks: [one, two], relaunchOnReboot: true });
  await back.waitFor(
    /^liken: mirror: member 1 was behind member 2 \(generation \d+ < \d+\): brought up to date, rebooting$/,
    BOOT_MS,
  );
  await back.waitFor(/^liken 2\.0\.0 slot b up$/, BOOT_MS);
  await powerOff(back, "returned");
  for (const member of [one, two]) {
    expect(await entryNames(member)).toEqual(["liken-a-1.0.0.conf", "liken-b-2.0.0.conf"]);
    const seen = await inspect(member.path);
    expect(seen.slots.b).toEqual({ version: "2.0.0", hashMatches: true });
    expect(condition(seen, "SystemDiskMirrored")?.status).toBe("True");
  }
}, 1_800_000);

it("falls back from a 2.0.0 that fails its health check with member 1 gone, and gives member 1 the rejection when it returns", async () => {
  const bad = await cachedRelease({ version: "2.0.0", fault: "health" });
  const medium: VmDisk = {
    path: await updateMedium(dir, "2.0.0", bad, { name: "medium-bad" }),
    bus: "virtio",
  };
  const [one, two] = await installedMirror("fallback");
  const alone = await startVm({ disks: [two, medium], relaunchOnReboot: true });
  await alone.waitFor("liken: trial of 2.0.0 failed: the release's own check failed", BOOT_MS);
  await alone.waitFor("liken: release 2.0.0 was rejected (HealthCheckFailed)", BOOT_MS);
  await alone.waitFor(/^liken 1\.0\.0 slot a up$/, BOOT_MS);
  await powerOff(alone, "fallback");
  const fellBack = await inspect(two.path);
  expect(condition(fellBack, "RejectedLastBoot")).toMatchObject({
    status: "True",
    reason: "HealthCheckFailed",
  });
  expect(condition(fellBack, "SystemDiskMirrored")?.reason).toBe("MemberMissing");

  const back = await startVm({ disks: [one, two], relaunchOnReboot: true });
  await back.waitFor(
    /^liken: mirror: member 1 was behind member 2 \(generation \d+ < \d+\): brought up to date, rebooting$/,
    BOOT_MS,
  );
  await back.waitFor(/^liken 1\.0\.0 slot a up$/, BOOT_MS);
  await powerOff(back, "fallback-back");
  for (const member of [one, two]) {
    expect(await entryNames(member)).toEqual(["liken-a-1.0.0.conf"]);
    const seen = await inspect(member.path);
    expect(condition(seen, "RejectedLastBoot")?.reason).toBe("HealthCheckFailed");
    expect(condition(seen, "SystemDiskMirrored")?.status).toBe("True");
  }
}, 1_800_000);
