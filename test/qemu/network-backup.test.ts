// An active-backup bond (issue 41), under OVMF and TCG: leader-1's two ports on one segment,
// a bridge in a namespace of the test's own that holds 10.42.0.1 and fd00:42::1, and also
// 10.42.0.99 and fd00:42::99, two of the addresses the manifest declares for the machine.
// The bond carries traffic on one port; a cable pulled from it and traffic moves to the
// other; a boot with that cable out comes up with NetworkReady False BondDegraded naming the
// port. Each boot leaves the two taken addresses unconfigured and names them
// (AddressConflict), and the machine stays up.
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { cachedRelease } from "../../testing/cached-build.ts";
import type { NicSpec } from "../../testing/qemu/index.ts";
import {
  startUplinkNamespace,
  type UplinkNamespace,
  withConsoles,
} from "../../testing/switch-vm/index.ts";
import { run } from "../../tools/exec.ts";
import { condition, inspect, installedDisk } from "./boot-path.ts";
import { startVm, type Vm } from "./harness.ts";

const MANIFEST = "test/fixtures/manifests/good/rack-backup.toml";
const V4 = "10.42.0.11";
const V6 = "fd00:42::11";
const MACS = ["52:54:00:42:00:01", "52:54:00:42:00:02"];
const BOOT_MS = 240_000;

let dir: string;
let release: string;
let site: UplinkNamespace;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "liken-qemu-backup-"));
  release = await cachedRelease({ version: "1.0.0" });
  site = await startUplinkNamespace({ cidr: "10.42.0.1/24" });
  // The other host: it holds two of the machine's declared addresses.
  for (const cidr of ["fd00:42::1/64", "10.42.0.99/24", "fd00:42::99/64"])
    await run("ip", ["-n", site.ns, "addr", "add", cidr, "dev", site.bridge, "nodad"]);
}, 600_000);
afterAll(async () => {
  await site?.stop();
  await rm(dir, { recursive: true, force: true });
});

function nics(eno1: "up" | "down"): NicSpec[] {
  // acpi-index 1 and 2 behind root ports: the guest names them eno1 and eno2.
  return MACS.map((mac, i) => ({
    ...site.uplinkNic(),
    mac,
    acpiIndex: i + 1,
    rootPort: true,
    ...(i === 0 ? { link: eno1 } : {}),
  }));
}

async function boot(disk: string, eno1: "up" | "down", then: (vm: Vm) => Promise<void>) {
  const vm = await startVm({
    disks: [{ path: disk, bus: "virtio" }],
    nics: nics(eno1),
    relaunchOnReboot: true,
  });
  try {
    await withConsoles([{ name: "machine", tail: (n) => vm.tail(n) }], async () => {
      await vm.waitFor(/^liken 1\.0\.0 slot a up$/, BOOT_MS);
      await then(vm);
    });
  } finally {
    await vm.stop();
  }
}

describe("an active-backup bond", () => {
  it("moves traffic to the other port when a cable is pulled, comes up degraded without it, and names taken addresses", async () => {
    const disk = await installedDisk(dir, release, MANIFEST);

    await boot(disk, "up", async (vm) => {
      expect(vm.console()).toMatch(
        /liken: network bond0: active-backup, eno1 carries traffic; eno2 stands by/,
      );
      expect(vm.console()).toMatch(/liken: network bond0: .*10\.42\.0\.99\/24.*another host/);
      await site.waitForPing(V4, {}, 60_000);
      expect((await site.waitForPing(V6, {}, 30_000)).output).toContain(`from ${V6}`);
      await vm.setLink(0, false);
      // miimon notices within 0.1 s; the bond's gratuitous ARP moves the bridge's entry.
      expect((await site.waitForPing(V4, { count: 1 }, 15_000)).answered).toBe(true);
    });
    const first = condition(await inspect(disk), "NetworkReady");
    expect(first).toMatchObject({ status: "False", reason: "AddressConflict" });
    expect(first?.message).toContain("10.42.0.99");
    expect(first?.message).toContain("fd00:42::99");

    await boot(disk, "down", async (vm) => {
      expect(vm.console()).toMatch(
        /liken: network bond0: active-backup, eno2 carries traffic; eno1 has no carrier/,
      );
      await site.waitForPing(V4, {}, 60_000);
    });
    const second = condition(await inspect(disk), "NetworkReady");
    expect(second).toMatchObject({ status: "False", reason: "BondDegraded" });
    expect(second?.message).toContain("eno1");
  });
});
