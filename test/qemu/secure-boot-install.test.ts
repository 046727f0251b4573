// An installed disk with Secure Boot on, from a machine whose keys were cleared (OVMF's
// Secure Boot build in setup mode, no TPM): the signed stick enrolls the test cluster's
// keys, Microsoft's CA kept since it could not check the option ROMs, and installs
// leader-1 unattended; the disk boots 1.0.0 with Secure Boot on. Then updates: a release
// signed with another key is refused before a byte is written; a release changed after it
// was signed is refused by the firmware at its trial, and the machine returns to 1.0.0 by
// itself with RejectedLastBoot; a signed 2.0.0 is tried and blessed.
import { copyFile, mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { cachedRelease, cachedStick } from "../../testing/cached-build.ts";
import { sparseFile } from "../disk-files.ts";
import {
  bootMachine,
  condition,
  inspect,
  MANIFEST,
  returnsToProven,
  updateMedium,
} from "./boot-path.ts";
import { startVm, type Vm } from "./harness.ts";

const KEYS = "test/fixtures/keys/cluster";
const BOOT_MS = 240_000;
const UP_1 = /^liken 1\.0\.0 slot a up$/;

let dir: string;
let stick: string;
let disk: string;
/** The machine's variables once the stick enrolled the keys; each boot carries them on. */
let vars: string;
const releases: Record<string, string> = {};

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "liken-qemu-secure-install-"));
  releases.v1 = await cachedRelease({ version: "1.0.0", signKeys: KEYS });
  releases.good = await cachedRelease({ version: "2.0.0", signKeys: KEYS });
  releases.otherKey = await cachedRelease({
    version: "2.0.1",
    signKeys: "test/fixtures/keys/other",
  });
  releases.changed = await cachedRelease({
    version: "2.0.2",
    signKeys: KEYS,
    fault: "signature",
  });
  stick = await cachedStick({
    manifest: MANIFEST,
    releaseDir: releases.v1,
    append: ["liken.install=leader-1", "liken.then=reboot"],
    signKeys: KEYS,
  });
  vars = join(dir, "vars.fd");
}, 900_000);
afterAll(() => rm(dir, { recursive: true, force: true }));

/** Stops the machine and keeps its variables for its next boot. */
async function keepVars(vm: Vm): Promise<void> {
  await vm.qmp.execute("quit").catch(() => {});
  await vm.waitForExit(30_000);
  await copyFile(vm.varsFile, vars);
  await vm.stop();
}

/** Boots the disk with an update medium, through the enrolled variables. */
async function bootWith(medium: string) {
  const vm = await bootMachine(disk, { medium, firmware: "setup-mode", varsFrom: vars });
  return { vm, done: () => keepVars(vm) };
}

describe("a machine in setup mode, installed from the signed stick", () => {
  it("enrolls the keys, installs leader-1 with Secure Boot on, and the disk boots 1.0.0 with Secure Boot on", async () => {
    disk = await sparseFile(join(dir, "disk.img"), 4 * 1024 ** 3);
    const stickCopy = join(dir, "stick.img");
    await copyFile(stick, stickCopy);
    const vm = await startVm({
      stick: stickCopy,
      stickWritable: true,
      disks: [{ path: disk, bus: "virtio" }],
      firmware: "setup-mode",
      relaunchOnReboot: true,
    });
    // No TPM in this machine: the stick cannot read which option ROMs ran, so db keeps
    // Microsoft's CA, and it says so.
    await vm.waitFor(
      "liken-stick: db keeps Microsoft's UEFI CA: could not check for option ROMs (no TPM)",
      BOOT_MS,
    );
    await vm.waitFor("liken-stick: Secure Boot keys enrolled: restarting with Secure Boot on");
    await vm.waitFor("EFI stub: UEFI Secure Boot is enabled.", BOOT_MS);
    await vm.waitFor(/liken-stick: installed as leader-1 on \/dev\/vda, install /, 300_000);
    await vm.waitFor(UP_1, BOOT_MS);
    // Enrollment, the stick with Secure Boot on, the disk.
    expect(vm.boots).toBe(3);
    await keepVars(vm);

    const installed = await inspect(disk);
    expect(installed.status.boot).toMatchObject({
      slot: "a",
      version: "1.0.0",
      trial: false,
      secureBoot: "enabled",
    });
    // The entry starts the release's signed image; its command line is inside the signature.
    expect(installed.entries.map((e) => e.fileName)).toEqual(["liken-a-1.0.0.conf"]);
  });

  it("does not stage a release signed with another key, and writes nothing", async () => {
    const machine = await bootWith(await updateMedium(dir, "2.0.1", releases.otherKey ?? ""));
    expect(await machine.vm.waitFor(/^liken: staging refused/, BOOT_MS)).toMatch(
      /^liken: staging refused \(SignatureNotTrusted\): release 2\.0\.1 is signed by "liken db ae50ed0b", which this machine's Secure Boot db does not hold: sign it with the cluster's keys/,
    );
    await machine.vm.waitFor(UP_1, BOOT_MS);
    await machine.done();
    const after = await inspect(disk);
    expect(after.slots.b).toEqual({ version: null, hashMatches: null });
    expect(after.entries.map((e) => e.fileName)).toEqual(["liken-a-1.0.0.conf"]);
  });

  it("returns to 1.0.0 by itself when the firmware refuses a trial changed after signing (BootImageRefused)", async () => {
    const machine = await bootWith(await updateMedium(dir, "2.0.2", releases.changed ?? ""));
    await machine.vm.waitFor("liken: staged 2.0.2 in slot b with one try", BOOT_MS);
    await machine.vm.waitFor(
      /Error loading \\liken\\b\\liken\.efi: (Access Denied|Security Violation)/,
      BOOT_MS,
    );
    await returnsToProven(machine.vm, "2.0.2", "BootImageRefused", BOOT_MS);
    const after = await inspect(disk);
    expect(condition(after, "RejectedLastBoot")).toMatchObject({
      status: "True",
      reason: "BootImageRefused",
    });
    expect(after.status.boot).toMatchObject({ slot: "a", trial: false, secureBoot: "enabled" });
    expect(after.entries.map((e) => e.fileName)).toEqual(["liken-a-1.0.0.conf"]);
  });

  it("tries and blesses a 2.0.0 signed with the cluster's key, Secure Boot on", async () => {
    const machine = await bootWith(await updateMedium(dir, "2.0.0", releases.good ?? ""));
    await machine.vm.waitFor("liken: staged 2.0.0 in slot b with one try", BOOT_MS);
    await machine.vm.waitFor("liken: trial passed: 2.0.0 in slot b is the proven release", BOOT_MS);
    await machine.vm.waitFor(/^liken 2\.0\.0 slot b up$/, BOOT_MS);
    await machine.done();
    const after = await inspect(disk);
    expect(after.status.boot).toMatchObject({
      slot: "b",
      version: "2.0.0",
      trial: true,
      secureBoot: "enabled",
    });
    expect(after.slots.b).toEqual({ version: "2.0.0", hashMatches: true });
  });
});
