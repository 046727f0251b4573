// The stick as one hybrid ISO (image --out FILE.iso): in a CD drive on AHCI, as a BMC's
// virtual media shows it, OVMF boots it by El Torito; the same file on a USB disk (dd)
// boots as a GPT disk. Both find the payload on the ISO's filesystem, check it and show
// the menu. Built with liken.install=leader-1, the CD installs the machine unattended and
// the disk then boots the release. Signed, the ISO in the CD drive of a machine in setup
// mode (no TPM) enrolls the cluster's keys from its Linux and boots with Secure Boot on to
// the menu.
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, expect, it } from "vitest";
import { cachedRelease, cachedStick } from "../../testing/cached-build.ts";
import { sparseFile } from "../disk-files.ts";
import { type Inspected, inspect, MANIFEST } from "./boot-path.ts";
import { startVm } from "./harness.ts";

let dir: string;
let release: string;
let iso: string;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "liken-qemu-iso-"));
  release = await cachedRelease({ version: "1.0.0" });
  iso = await cachedStick({ manifest: "examples/cluster.toml", releaseDir: release, iso: true });
}, 600_000);
afterAll(() => rm(dir, { recursive: true, force: true }));

it("boots as a CD on AHCI to the menu", async () => {
  const disk = await sparseFile(join(dir, "cd-blank.img"), 8 * 1024 ** 3);
  const vm = await startVm({ cdrom: iso, disks: [{ path: disk, bus: "ahci" }] });
  await vm.waitFor("liken-stick: finding the ISO", 120_000);
  await vm.waitFor(/^liken-stick: payload \/dev\/sr0 verified$/, 120_000);
  await vm.waitFor(/Arrows or j\/k: move/, 120_000);
  expect(vm.console()).toContain("Install as leader-1");
  await vm.stop();
});

it("boots the same file as a USB disk to the menu", async () => {
  const disk = await sparseFile(join(dir, "usb-blank.img"), 8 * 1024 ** 3);
  const vm = await startVm({ stick: iso, disks: [{ path: disk, bus: "virtio" }] });
  await vm.waitFor(/^liken-stick: payload \/dev\/sd\w+ verified$/, 180_000);
  await vm.waitFor(/Arrows or j\/k: move/, 120_000);
  expect(vm.console()).toContain("Install as leader-1");
  await vm.stop();
});

it("installs unattended from the CD, and the disk boots the release", async () => {
  const unattended = await cachedStick({
    manifest: MANIFEST,
    releaseDir: release,
    append: ["liken.install=leader-1", "liken.then=reboot"],
    iso: true,
  });
  const disk = await sparseFile(join(dir, "cd-install.img"), 4 * 1024 ** 3);
  const vm = await startVm({
    cdrom: unattended,
    disks: [{ path: disk, bus: "ahci" }],
    relaunchOnReboot: true,
  });
  await vm.waitFor(/^liken-stick: installed as leader-1 on \/dev\/sda, install /, 300_000);
  // The CD cannot hold the stick's record: it is kept in memory until the reboot.
  await vm.waitFor(/^liken-stick: recorded install \S+ in \/run\/liken\/installed\.json$/, 30_000);
  await vm.waitFor(/^liken 1\.0\.0 slot a up$/, 240_000);
  await vm.stop();
  const inspected = (await inspect(disk)) as Inspected & { claim: unknown };
  expect(inspected.status.boot).toMatchObject({ slot: "a", version: "1.0.0" });
  expect(inspected.claim).toMatchObject({ machine: "leader-1", complete: true });
});

it("signed, enrolls the keys from the CD of a machine in setup mode and boots with Secure Boot on", async () => {
  const keys = "test/fixtures/keys/cluster";
  const signedRelease = await cachedRelease({ version: "1.0.0", signKeys: keys });
  const signed = await cachedStick({
    manifest: MANIFEST,
    releaseDir: signedRelease,
    signKeys: keys,
    iso: true,
  });
  const vm = await startVm({ cdrom: signed, firmware: "setup-mode", relaunchOnReboot: true });
  await vm.waitFor(/^liken-stick: payload \/dev\/sr0 verified$/, 120_000);
  await vm.waitFor(
    "liken-stick: db keeps Microsoft's UEFI CA: could not check for option ROMs (no TPM)",
    120_000,
  );
  await vm.waitFor("liken-stick: enrolled PK: liken PK afd13149", 60_000);
  await vm.waitFor("EFI stub: UEFI Secure Boot is enabled.", 120_000);
  expect(vm.boots).toBe(2);
  await vm.waitFor(/^liken-stick: payload \/dev\/sr0 verified$/, 120_000);
  await vm.waitFor(/Arrows or j\/k: move/, 120_000);
  await vm.stop();
}, 600_000);
