// One stick for a row of machines (liken.install=auto): the manifest names each machine's
// hardware in its match. A machine whose NIC's MAC and SMBIOS serial are worker-1's
// installs as worker-1 and boots it; a machine with worker-1's MAC but another serial
// matches nobody: the stick writes nothing, says what the machine is and that worker-1
// came close, and holds. Both send their report (liken.report=URL) to a server on the
// host's loopback, which QEMU's user network shows the guest as 10.0.2.2.
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, expect, it } from "vitest";
import { cachedRelease, cachedStick } from "../../testing/cached-build.ts";
import { contentDigest, sparseFile } from "../disk-files.ts";
import { type Inspected, inspect } from "./boot-path.ts";
import { startVm } from "./harness.ts";
import { type ReportServer, startReportServer } from "./report-server.ts";

const MANIFEST = "test/fixtures/manifests/good/match.toml";
const REPORT_PORT = 18787;
let dir: string;
let stick: string;
let server: ReportServer<{
  machine: string | null;
  status: { phase?: string } | null;
  hardware: { schema?: string } | null;
}>;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "liken-qemu-auto-"));
  const release = await cachedRelease({ version: "1.0.0" });
  server = await startReportServer(REPORT_PORT);
  stick = await cachedStick({
    manifest: MANIFEST,
    releaseDir: release,
    append: ["liken.install=auto", "liken.then=reboot", `liken.report=${server.url}`],
  });
}, 600_000);
afterAll(async () => {
  await server.close();
  await rm(dir, { recursive: true, force: true });
});

it("installs the machine whose match is this hardware, and boots it", async () => {
  const disk = await sparseFile(join(dir, "worker-1.img"), 4 * 1024 ** 3);
  const vm = await startVm({
    stick,
    disks: [{ path: disk, bus: "virtio" }],
    nics: [{ model: "virtio", mac: "52:54:00:4c:4b:02" }],
    system: { serial: "LIKEN-QEMU-0002" },
    relaunchOnReboot: true,
  });
  expect(await vm.waitFor(/^liken-stick: this machine: /, 240_000)).toMatch(
    /^liken-stick: this machine: MAC 52:54:00:4c:4b:02, serial LIKEN-QEMU-0002, uuid unknown; it is worker-1 in the manifest$/,
  );
  await vm.waitFor(/liken-stick: installed as worker-1 on \/dev\/vda, install /, 300_000);
  await vm.waitFor(`liken-stick: report sent to ${server.url} (HTTP 204)`, 120_000);
  expect(server.reports.at(-1)).toMatchObject({
    machine: "worker-1",
    status: { phase: "Installed" },
    hardware: { schema: "liken-hwreport/2" },
  });
  await vm.waitFor(/^liken 1\.0\.0 slot a up$/, 240_000);
  await vm.stop();
  const inspected = (await inspect(disk)) as Inspected & { claim: unknown };
  expect(inspected.status.boot).toMatchObject({ slot: "a", version: "1.0.0" });
  expect(inspected.claim).toMatchObject({
    cluster: "testcluster",
    machine: "worker-1",
    complete: true,
  });
});

it("writes nothing and holds when no machine's match is this hardware, naming the one that came close", async () => {
  const disk = await sparseFile(join(dir, "nobody.img"), 4 * 1024 ** 3);
  const blank = await contentDigest(disk);
  const vm = await startVm({
    stick,
    disks: [{ path: disk, bus: "virtio" }],
    nics: [{ model: "virtio", mac: "52:54:00:4c:4b:12" }],
    system: { serial: "LIKEN-QEMU-0099" },
  });
  await vm.waitFor(
    /^liken-stick: this machine: MAC 52:54:00:4c:4b:12, serial LIKEN-QEMU-0099/,
    240_000,
  );
  expect(await vm.waitFor(/came close/, 30_000)).toBe(
    "liken-stick: worker-1 came close: its mac agreed, its serial did not",
  );
  expect(await vm.waitFor(/^liken-stick unattended: /, 30_000)).toBe(
    "liken-stick unattended: no machine of the manifest matches this hardware (add this machine's MAC, serial or UUID to its match in the manifest, or boot with liken.install=NAME)",
  );
  await vm.waitFor("the unattended install as auto did not finish", 120_000);
  expect(vm.console()).toContain(`liken-stick: report sent to ${server.url} (HTTP 204)`);
  expect(server.reports.at(-1)).toMatchObject({ machine: null, status: null });
  await vm.stop();
  expect(await contentDigest(disk)).toBe(blank);
});
