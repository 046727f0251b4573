// The arm64 tier (issue 44): QEMU's virt machine under AAVMF, as an Arm server boots. An
// arm64 stick built on this amd64 host installs leader-1 unattended, sends its report,
// whose hardware names the virtio disk and NIC with their drivers, and the installed disk
// boots to `liken 1.0.0 slot a up`; a 2.0.0 that fails its health check is staged, tried
// once and rejected, the machine back in slot A with RejectedLastBoot; a trial that panics
// leaves its crash in the journal (efi-pstore in AAVMF's variables), and one that hangs is
// reset by the i6300esb watchdog. The arm64 ISO boots as a CD and as a USB disk to the
// menu. The rest of the boot path is the same code as amd64's and is proven
// there; this tier proves what differs: the loader, the kernel, the console, the drivers.
import { copyFile, mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, beforeAll, expect, it } from "vitest";
import { cachedRelease, cachedStick } from "../../testing/cached-build.ts";
import { sparseFile } from "../disk-files.ts";
import { condition, inspect, returnsToProven, updateMedium } from "./boot-path.ts";
import { startVm, stopAllVms } from "./harness.ts";
import { type ReportServer, startReportServer } from "./report-server.ts";

const MANIFEST = "test/fixtures/manifests/good/small-arm64.toml";
const REPORT_PORT = 18795;
const GIB = 1024 ** 3;
const BOOT_MS = 300_000;

interface Report {
  machine: string | null;
  hardware: {
    cpu: { arch: string | null } | null;
    disks: { name: string; bus: string | null; chain: { driver: string | null }[] }[];
    nics: { name: string; kernelName: string; driver: string | null }[];
  } | null;
}

let dir: string;
let v1: string;
let v2bad: string;
let v2panic: string;
let v2hang: string;
let server: ReportServer<Report>;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "liken-qemu-arm64-"));
  server = await startReportServer(REPORT_PORT);
  v1 = await cachedRelease({ version: "1.0.0", arch: "arm64" });
  v2bad = await cachedRelease({ version: "2.0.0", arch: "arm64", fault: "health" });
  v2panic = await cachedRelease({ version: "2.0.1", arch: "arm64", fault: "panic" });
  v2hang = await cachedRelease({ version: "2.0.2", arch: "arm64", fault: "hang" });
}, 600_000);
afterEach(stopAllVms);
afterAll(async () => {
  await server.close();
  await rm(dir, { recursive: true, force: true });
});

it("installs an arm64 machine unattended, reports its virtio disk and NIC, boots it, and falls back from a failed health check, a panic (its crash journaled) and a hang (the watchdog)", async () => {
  const stick = await cachedStick({
    manifest: MANIFEST,
    releaseDir: v1,
    append: ["liken.install=leader-1", "liken.then=reboot", `liken.report=${server.url}`],
  });
  const stickCopy = join(dir, "stick.img");
  await copyFile(stick, stickCopy);
  const disk = await sparseFile(join(dir, "leader-1.img"), 4 * GIB);
  const vm = await startVm({
    arch: "arm64",
    stick: stickCopy,
    stickWritable: true,
    disks: [{ path: disk, bus: "virtio" }],
    nics: ["virtio"],
    relaunchOnReboot: true,
  });
  await vm.waitFor(/^liken-stick: installed as leader-1 on \/dev\/vda, install /, 600_000);
  await vm.waitFor(`liken-stick: report sent to ${server.url} (HTTP 204)`, 120_000);
  await vm.waitFor(/^liken 1\.0\.0 slot a up$/, BOOT_MS);
  await vm.stop();
  // The installed machine's console is the PL011 the kernel was told of.
  expect(vm.console()).toMatch(/console \[ttyAMA0\] enabled/);

  const report = server.reports.at(-1)!;
  expect(report.machine).toBe("leader-1");
  expect(report.hardware?.cpu?.arch).toBe("arm64");
  const vda = report.hardware?.disks.find((d) => d.name === "vda");
  expect(vda?.bus).toBe("virtio");
  expect(vda?.chain.map((l) => l.driver)).toContain("virtio_blk");
  const nic = report.hardware?.nics.find((n) => n.driver === "virtio_net");
  // The stick names the NIC by its PCI path as udev would on the installed machine, and the
  // installed machine agrees (the name a manifest's ports use).
  expect(nic?.name).toMatch(/^enp0s\d+$/);
  expect(vm.console()).toContain(`liken: network interface eth0 is ${nic?.name}`);

  const installed = await inspect(disk);
  expect(installed.slots.a).toEqual({ version: "1.0.0", hashMatches: true });
  expect(installed.status).toMatchObject({ phase: "Running", version: "1.0.0", slot: "a" });

  const medium = await updateMedium(dir, "2.0.0", v2bad);
  const trial = await startVm({
    arch: "arm64",
    disks: [
      { path: disk, bus: "virtio" },
      { path: medium, bus: "virtio" },
    ],
    relaunchOnReboot: true,
  });
  await trial.waitFor("liken: booting 2.0.0 from slot b as its one trial", BOOT_MS);
  await trial.waitFor("liken: trial of 2.0.0 failed: the release's own check failed", BOOT_MS);
  await trial.waitFor(/^liken: booting 1\.0\.0 from slot a$/, BOOT_MS);
  await trial.waitFor("liken: release 2.0.0 was rejected (HealthCheckFailed)", BOOT_MS);
  await trial.waitFor(/^liken 1\.0\.0 slot a up$/, BOOT_MS);
  await trial.stop();
  const rejected = await inspect(disk);
  expect(rejected.status).toMatchObject({ phase: "Running", version: "1.0.0", slot: "a" });
  expect(condition(rejected, "RejectedLastBoot")).toMatchObject({
    status: "True",
    reason: "HealthCheckFailed",
  });

  // A trial whose kernel panics: the kernel's last words kept in AAVMF's variables
  // (efi-pstore) are the crash journal's record at the next boot.
  const panicked = await startVm({
    arch: "arm64",
    disks: [
      { path: disk, bus: "virtio" },
      { path: await updateMedium(dir, "2.0.1", v2panic), bus: "virtio" },
    ],
    relaunchOnReboot: true,
    expectPanic: true,
  });
  await panicked.waitFor("liken: booting 2.0.1 from slot b as its one trial", BOOT_MS);
  await panicked.waitFor("Kernel panic - not syncing: sysrq triggered crash", BOOT_MS);
  await returnsToProven(panicked, "2.0.1", "Crashed", BOOT_MS);
  expect(panicked.console()).toMatch(/liken: crash journal: 1 record, 1 new/);
  const crashed = await inspect(disk);
  expect(crashed.status.lastCrash).toMatchObject({ release: "2.0.1", slot: "b" });

  // A trial whose root hangs: virt's i6300esb resets the machine, as on q35.
  const hung = await startVm({
    arch: "arm64",
    disks: [
      { path: disk, bus: "virtio" },
      { path: await updateMedium(dir, "2.0.2", v2hang), bus: "virtio" },
    ],
    relaunchOnReboot: true,
  });
  await hung.waitFor("liken: watchdog i6300ESB timer armed for the trial of 2.0.2", BOOT_MS);
  await hung.waitFor("liken: the root hangs", BOOT_MS);
  await returnsToProven(hung, "2.0.2", "NoBootComplete", BOOT_MS);
}, 1_800_000);

// The arm64 ESP is past El Torito's 32 MiB, so it lies inside the ISO 9660 volume, not
// appended (tools/xorriso.ts): both ways of booting the file are checked.
it("boots the arm64 ISO as a CD and as a USB disk to the menu", async () => {
  const iso = await cachedStick({ manifest: MANIFEST, releaseDir: v1, iso: true });
  const cd = await startVm({ arch: "arm64", cdrom: iso });
  await cd.waitFor(/^liken-stick: payload \/dev\/sr0 verified$/, 180_000);
  await cd.waitFor(/Install as leader-1/, 120_000);
  await cd.stop();
  const usb = await startVm({ arch: "arm64", stick: iso });
  await usb.waitFor(/^liken-stick: payload \/dev\/sd\w+ verified$/, 180_000);
  await usb.waitFor(/Install as leader-1/, 120_000);
}, 600_000);
