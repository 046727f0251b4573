// A rack without DHCP (issue 41), under OVMF and TCG: leader-1's two ports cabled to a
// top-of-rack switch VM (testing/switch-vm/) that is its LACP partner, trunks VLAN 40 on
// the port channel and bridges it to a namespace of the test's own holding 10.41.40.1 and
// fd00:41::1 at MTU 9000; no DHCP server anywhere. The stick installs leader-1 unattended
// and reports over its declared address on the VLAN of the bond to a receiver in the
// namespace; the installed machine then answers on its IPv4 and IPv6 addresses, jumbo
// frames included, at every boot, with both cables in the aggregate. Against a switch
// that speaks no LACP, traffic flows on one link and NetworkReady says why.
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { cachedRelease, cachedStick } from "../../testing/cached-build.ts";
import type { NicSpec } from "../../testing/qemu/index.ts";
import {
  cables,
  type PeerConfig,
  type SwitchVm,
  startSwitchVm,
  startUplinkNamespace,
  type UplinkNamespace,
  withConsoles,
} from "../../testing/switch-vm/index.ts";
import { run, type StartedProcess, start } from "../../tools/exec.ts";
import { inNamespace } from "../../tools/ip.ts";
import { sparseFile } from "../disk-files.ts";
import { condition, inspect, installedDisk } from "./boot-path.ts";
import { startVm, type Vm } from "./harness.ts";

const MANIFEST = "test/fixtures/manifests/good/rack-lacp.toml";
const V4 = "10.41.40.11";
const V6 = "fd00:41::11";
const SITE_V4 = "10.41.40.1";
const REPORTS = `http://${SITE_V4}:8080/liken/reports`;
const MACS = ["52:54:00:41:00:01", "52:54:00:41:00:02"];
const JUMBO = { payload: 8972, dontFragment: true };
const BOOT_MS = 240_000;
const LACP_MS = 60_000;

let dir: string;
let release: string;
let site: UplinkNamespace;
let receiver: StartedProcess;
const reportsFile = () => join(dir, "reports.jsonl");

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "liken-qemu-rack-"));
  release = await cachedRelease({ version: "1.0.0" });
  site = await startUplinkNamespace({ cidr: `${SITE_V4}/24`, mtu: 9000 });
  await run("ip", ["-n", site.ns, "addr", "add", "fd00:41::1/64", "dev", site.bridge, "nodad"]);
  receiver = await start(
    "ip",
    inNamespace(site.ns, process.execPath, [
      "test/netns/receive-reports.mjs",
      SITE_V4,
      "8080",
      reportsFile(),
    ]),
    { stdout: "pipe" },
  );
  await new Promise((resolve) => receiver.stdout?.once("data", resolve));
}, 600_000);
afterAll(async () => {
  receiver?.kill("SIGKILL");
  await site?.stop();
  await rm(dir, { recursive: true, force: true });
});

/** A switch with `lag` on its two downlinks, and leader-1's two NICs cabled to it. */
async function rack(lag: PeerConfig["lag"]): Promise<{ sw: SwitchVm; nics: NicSpec[] }> {
  const links = await cables(2);
  const sw = await startSwitchVm({
    config: { downlinks: 2, lag, vlans: [40], uplink: true, mtu: 9000 },
    downlinks: links.map((l) => l.switchNic),
    uplink: site.uplinkNic(),
  });
  // acpi-index 1 and 2 behind root ports: the guest names them eno1 and eno2.
  const nics = links.map((l, i) => ({
    ...l.machineNic,
    mac: MACS[i],
    acpiIndex: i + 1,
    rootPort: true,
  }));
  return { sw, nics };
}

function named(vm: Vm) {
  return { name: "machine", tail: (n?: number) => vm.tail(n) };
}

async function answersOnItsAddresses(): Promise<void> {
  const v4 = await site.waitForPing(V4, JUMBO, 60_000);
  expect(v4.output).toContain(`8980 bytes from ${V4}`);
  const v6 = await site.waitForPing(V6, {}, 30_000);
  expect(v6.output).toContain(`from ${V6}`);
}

describe("a rack without DHCP: an LACP bond with VLAN 40 and static addresses", () => {
  it("installs from the stick, reports over the VLAN, and answers on its addresses at every boot", async () => {
    const stick = await cachedStick({
      manifest: MANIFEST,
      releaseDir: release,
      append: ["liken.install=leader-1", "liken.then=reboot", `liken.report=${REPORTS}`],
    });
    const disk = await sparseFile(join(dir, "stick-installed.img"), 4 * 1024 ** 3);
    const { sw, nics } = await rack("802.3ad");
    const vm = await startVm({
      stick,
      disks: [{ path: disk, bus: "virtio" }],
      nics,
      relaunchOnReboot: true,
    });
    try {
      await withConsoles([named(vm), sw], async () => {
        await vm.waitFor(/liken-stick: installed as leader-1 on \/dev\/vda, install /, BOOT_MS);
        const via = await vm.waitFor(/^liken-stick: sending the report to /, 120_000);
        expect(via).toBe(`liken-stick: sending the report to ${REPORTS} by bond0.40 from ${V4}`);
        expect(vm.console()).toMatch(
          /liken-stick: network bond0: 802\.3ad, eno1 and eno2 carry traffic/,
        );
        await vm.waitFor(/^liken-stick: report sent to /, 120_000);
        const [report] = (await readFile(reportsFile(), "utf8"))
          .trim()
          .split("\n")
          .map((l) => JSON.parse(l));
        expect(report.from).toBe(V4);
        expect(report.body).toMatchObject({
          machine: "leader-1",
          hardware: { interfaces: expect.any(Array) },
        });

        await vm.waitFor(/^liken 1\.0\.0 slot a up$/, BOOT_MS);
        expect(vm.console()).toMatch(
          /liken: network bond0\.40: up, 10\.41\.40\.11\/24 fd00:41::11\/64/,
        );
        await sw.waitFor(
          new RegExp(`^switch: bond0 aggregator \\d+ ports 2 partner ${MACS[0]}$`),
          LACP_MS,
        );
        await answersOnItsAddresses();

        await vm.reset();
        await vm.waitFor(/^liken 1\.0\.0 slot a up$/, BOOT_MS);
        await answersOnItsAddresses();
      });
    } finally {
      await Promise.all([vm.stop(), sw.stop()]);
    }
    const status = await inspect(disk);
    expect(condition(status, "NetworkReady")).toMatchObject({
      status: "True",
      reason: "Configured",
    });
  });

  it("without an LACP partner, carries traffic on one link and says so", async () => {
    const disk = await installedDisk(dir, release, MANIFEST, { name: "no-partner.img" });
    const { sw, nics } = await rack("none");
    const vm = await startVm({
      disks: [{ path: disk, bus: "virtio" }],
      nics,
      relaunchOnReboot: true,
    });
    try {
      await withConsoles([named(vm), sw], async () => {
        await vm.waitFor(/^liken 1\.0\.0 slot a up$/, BOOT_MS);
        expect(vm.console()).toMatch(
          /liken: network bond0: 802\.3ad, eno\d carries traffic; eno\d has no LACP partner/,
        );
        const v4 = await site.waitForPing(V4, JUMBO, 60_000);
        expect(v4.output).toContain(`8980 bytes from ${V4}`);
      });
    } finally {
      await Promise.all([vm.stop(), sw.stop()]);
    }
    const ready = condition(await inspect(disk), "NetworkReady");
    expect(ready).toMatchObject({ status: "False", reason: "BondDegraded" });
    expect(ready?.message).toContain("no LACP partner");
  });
});
