// A rack booted from the network through the kind of servers a site runs (netboot-site.ts:
// a namespace of the test's own with Debian's dnsmasq for DHCP and TFTP and an HTTP server):
// OVMF's PXE loads the folder's iPXE by TFTP, iPXE fetches boot.ipxe, the kernel and the
// initramfs over HTTP, and the initramfs fetches and checks the payload. Two machines with
// different MACs each install themselves as the machine their MAC matches
// (liken.install=auto) and then boot their disks. A payload file on the server that is
// not the one the folder was built with holds the machine, names the file, writes nothing;
// a server that answers 503 is retried as the console says.
import { mkdir, mkdtemp, readdir, readFile, rm, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, expect, it } from "vitest";
import { cachedNetboot, cachedRelease } from "../../testing/cached-build.ts";
import { contentDigest, sparseFile } from "../disk-files.ts";
import { type Inspected, inspect } from "./boot-path.ts";
import { startVm } from "./harness.ts";
import { type NetbootSite, startNetbootSite } from "./netboot-site.ts";

const MANIFEST = "test/fixtures/manifests/good/match.toml";
let dir: string;
let folder: string;
let site: NetbootSite;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "liken-qemu-netboot-"));
  const release = await cachedRelease({ version: "1.0.0" });
  folder = await cachedNetboot({
    manifest: MANIFEST,
    releaseDir: release,
    url: "http://10.77.0.1:8080/",
    append: ["liken.install=auto", "liken.then=reboot"],
  });
  site = await startNetbootSite(dir, folder);
}, 600_000);
afterAll(async () => {
  await site?.stop();
  await rm(dir, { recursive: true, force: true });
});

async function netbootInstall(name: string, mac: string, index: number, serial?: string) {
  const disk = await sparseFile(join(dir, `${name}.img`), 4 * 1024 ** 3);
  const vm = await startVm({
    disks: [{ path: disk, bus: "virtio" }],
    nics: [site.nic(mac, index)],
    ...(serial ? { system: { serial } } : {}),
    relaunchOnReboot: true,
  });
  await vm.waitFor("liken-stick: starting the network", 300_000);
  await vm.waitFor(
    /^liken-stick: \w+ has 10\.77\.0\.\d+\/24; fetching http:\/\/10\.77\.0\.1:8080\/payload$/,
    120_000,
  );
  await vm.waitFor(/^liken-stick: payload http:\/\/10\.77\.0\.1:8080\/payload verified$/, 300_000);
  await vm.waitFor(new RegExp(`^liken-stick: installed as ${name} on /dev/vda, install `), 400_000);
  await vm.waitFor(/^liken 1\.0\.0 slot a up$/, 300_000);
  await vm.stop();
  const inspected = (await inspect(disk)) as Inspected & { claim: unknown };
  expect(inspected.status.boot).toMatchObject({ slot: "a", version: "1.0.0" });
  expect(inspected.claim).toMatchObject({ machine: name, complete: true });
}

it("boots two machines from the network, each installs as the machine its MAC matches and boots its disk", async () => {
  await Promise.all([
    netbootInstall("leader-1", "52:54:00:4c:4b:01", 0),
    netbootInstall("worker-1", "52:54:00:4c:4b:02", 1, "LIKEN-QEMU-0002"),
  ]);
  const log = await site.log();
  // Each firmware took iPXE by TFTP; each iPXE took boot.ipxe by HTTP.
  expect(log).toMatch(/sent .*\/ipxe\.efi to 10\.77\.0\.\d+/);
  expect(log).toContain("http://10.77.0.1:8080/boot.ipxe");
});

it("retries a server that is not ready, then holds on a payload file that is not the one built, writing nothing", async () => {
  // The folder as a server might hold it after a bad copy: one file of the release changed.
  const bad = join(dir, "bad-folder");
  await linkTree(folder, bad);
  const changed = join(bad, "payload/release/release.toml");
  const text = await readFile(join(folder, "payload/release/release.toml"), "utf8");
  await rm(changed);
  await writeFile(changed, `${text}# changed on the server\n`);
  await site.closeGate();
  await site.serve(bad);

  const disk = await sparseFile(join(dir, "held.img"), 4 * 1024 ** 3);
  const blank = await contentDigest(disk);
  const vm = await startVm({
    disks: [{ path: disk, bus: "virtio" }],
    nics: [site.nic("52:54:00:4c:4b:01", 2)],
  });
  expect(await vm.waitFor(/next try at/, 400_000)).toMatch(
    /^liken-stick: http:\/\/10\.77\.0\.1:8080\/payload\/cluster\.toml failed: .*503.*; next try at \d\d:\d\d:\d\d UTC \(in 10 s\)$/,
  );
  await site.openGate();
  expect(await vm.waitFor(/is not the file this netboot was built with/, 120_000)).toBe(
    "liken-stick: release/release.toml from http://10.77.0.1:8080/payload/release/release.toml is not the file this netboot was built with (its sha256 differs); nothing was written: copy the netboot folder to the server again, or build it again with liken-stick netboot",
  );
  await vm.stop();
  expect(await contentDigest(disk)).toBe(blank);
  await site.serve(folder);
});

/** `to` with the same folders as `from` and a symlink for each file. */
async function linkTree(from: string, to: string): Promise<void> {
  await mkdir(to, { recursive: true });
  for (const e of await readdir(from, { withFileTypes: true })) {
    if (e.isDirectory()) await linkTree(join(from, e.name), join(to, e.name));
    else await symlink(join(from, e.name), join(to, e.name));
  }
}
