// Netboot with Secure Boot on: a machine whose firmware already holds the cluster's keys
// (enrolled here by the signed ISO in its CD drive, as a first visit would) boots the
// signed netboot folder's one image, liken.efi, by UEFI HTTP boot through dnsmasq: the
// firmware checks its signature, the kernel says Secure Boot is on, and the initramfs
// fetches the payload from the URL in the image's signed command line and reaches the menu.
import { copyFile, mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, expect, it } from "vitest";
import { cachedNetboot, cachedRelease, cachedStick } from "../../testing/cached-build.ts";
import { MANIFEST } from "./boot-path.ts";
import { startVm } from "./harness.ts";
import { type NetbootSite, startNetbootSite } from "./netboot-site.ts";

const KEYS = "test/fixtures/keys/cluster";
let dir: string;
let iso: string;
let site: NetbootSite;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "liken-qemu-netboot-signed-"));
  const release = await cachedRelease({ version: "1.0.0", signKeys: KEYS });
  iso = await cachedStick({ manifest: MANIFEST, releaseDir: release, signKeys: KEYS, iso: true });
  const folder = await cachedNetboot({
    manifest: MANIFEST,
    releaseDir: release,
    url: "http://10.77.0.1:8080/",
    signKeys: KEYS,
  });
  site = await startNetbootSite(dir, folder, { httpBootOnly: true });
}, 600_000);
afterAll(async () => {
  await site?.stop();
  await rm(dir, { recursive: true, force: true });
});

it("boots the signed image by UEFI HTTP boot with Secure Boot on, and fetches the payload its signed command line names", async () => {
  // The machine's keys, as the signed ISO enrolls them.
  const first = await startVm({ cdrom: iso, firmware: "setup-mode", relaunchOnReboot: true });
  await first.waitFor("EFI stub: UEFI Secure Boot is enabled.", 240_000);
  await first.waitFor(/Arrows or j\/k: move/, 120_000);
  await first.qmp.execute("quit");
  await first.waitForExit(30_000);
  const enrolled = join(dir, "enrolled-vars.fd");
  await copyFile(first.varsFile, enrolled);

  const vm = await startVm({
    firmware: "setup-mode",
    varsFrom: enrolled,
    nics: [site.nic("52:54:00:4c:4b:21", 0)],
  });
  await vm.waitFor("EFI stub: UEFI Secure Boot is enabled.", 300_000);
  expect(await vm.waitFor(/^liken-stick: \w+ has 10\.77\.0\.\d+\/24; fetching /, 120_000)).toMatch(
    /fetching http:\/\/10\.77\.0\.1:8080\/payload$/,
  );
  await vm.waitFor(/^liken-stick: payload http:\/\/10\.77\.0\.1:8080\/payload verified$/, 300_000);
  await vm.waitFor(/Arrows or j\/k: move/, 120_000);
  // How the firmware booted, from the log QEMU itself wrote: once, in a full run, the
  // socket's text had no "Start HTTP Boot" line before a kernel that only HTTP boot could
  // have loaded (no disk, no CD, PXE given nothing).
  const firmware = (await readFile(vm.serialLog, "latin1"))
    .split(/\r?\n/)
    .filter((l) => /Start (PXE|HTTP)|BdsDxe: (loading|starting)/.test(l));
  await vm.stop();
  expect(firmware.join("\n")).toMatch(/BdsDxe: starting Boot\w+ "UEFI HTTPv4 /);
});
