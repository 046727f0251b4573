// [encryption] with Secure Boot (issue 43): a machine in setup mode with a TPM 2.0 (OVMF's
// Secure Boot build, swtpm) takes the cluster's keys from the signed stick and is installed
// unattended with its disks encrypted and the recovery key on its console; the disk boots
// with Secure Boot on and the key its TPM releases. With Secure Boot turned off (the same
// TPM, plain OVMF with its variables as they come: no keys, Secure Boot off), PCR 7 is not
// what the key was sealed to: the boot holds for the recovery key and says why. (Debian's
// plain OVMF still enforces Secure Boot when its variables hold the enrolled keys.)
import { copyFile, mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, beforeAll, expect, it } from "vitest";
import { cachedRelease, cachedStick } from "../../testing/cached-build.ts";
import { sparseFile } from "../disk-files.ts";
import { startVm, stopAllVms } from "./harness.ts";

const MANIFEST = "test/fixtures/manifests/good/encryption-secure-boot.toml";
const KEYS = "test/fixtures/keys/cluster";
const BOOT_MS = 300_000;
const OPENED = "liken: encrypted disks opened with the key the TPM released: state, data";

let dir: string;
let stick: string;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "liken-qemu-encryption-sb-"));
  const release = await cachedRelease({ version: "1.0.0", signKeys: KEYS });
  stick = await cachedStick({
    manifest: MANIFEST,
    releaseDir: release,
    append: ["liken.install=worker-1", "liken.then=reboot"],
    signKeys: KEYS,
  });
}, 900_000);
afterEach(stopAllVms);
afterAll(() => rm(dir, { recursive: true, force: true }));

it("seals the key with Secure Boot on; with Secure Boot turned off the boot holds: PCR 7 changed", async () => {
  const disk = await sparseFile(join(dir, "worker-1.img"), 4 * 1024 ** 3);
  const tpmState = join(dir, "tpm");
  const stickCopy = join(dir, "stick.img");
  await copyFile(stick, stickCopy);
  const vm = await startVm({
    stick: stickCopy,
    stickWritable: true,
    disks: [{ path: disk, bus: "virtio" }],
    firmware: "setup-mode",
    tpmState,
    relaunchOnReboot: true,
  });
  await vm.waitFor("EFI stub: UEFI Secure Boot is enabled.", BOOT_MS);
  await vm.waitFor(/^liken-stick: installed as worker-1 on \/dev\/vda, install /, 600_000);
  await vm.waitFor("liken-stick: the recovery key of worker-1's encrypted disks, shown this once:");
  await vm.waitFor(OPENED, BOOT_MS);
  await vm.waitFor(/^liken 1\.0\.0 slot a up$/, BOOT_MS);
  await vm.qmp.execute("quit");
  await vm.waitForExit(30_000);
  await vm.stop();

  const off = await startVm({
    disks: [{ path: disk, bus: "virtio" }],
    firmware: "plain",
    tpmState,
  });
  await off.waitFor(
    "liken: the TPM did not release the key of the encrypted disks: PCR 7 changed since the key was sealed",
    BOOT_MS,
  );
  await off.waitFor("recovery key: ", 60_000);
  expect(off.console()).not.toContain(OPENED);
  expect(off.console()).not.toContain("EFI stub: UEFI Secure Boot is enabled.");
}, 1_800_000);
