// The declared port and modules at every boot, under OVMF and TCG: leader-1 declares eno1
// (a virtio-net NIC with acpi-index 1, as a server's first onboard port) and e1000e and
// i8042 parameters. The cable out: the boot waits about 30 s for eno1, reports
// PortWithoutCarrier and comes up. The cable in: no wait, PortsReady. No NIC: PortMissing.
// Each boot: e1000e's real parameter read back as the kernel spells it, the misspelt one
// left out (the kernel's own line on the console), ModuleParametersApplied False naming the
// built-in i8042. A release whose root lacks the declared port's driver is refused before
// it is staged (MissingDriver).
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { cachedRelease } from "../../testing/cached-build.ts";
import type { VmNic } from "../../testing/qemu/index.ts";
import { bootMachine, condition, inspect, installedDisk, updateMedium } from "./boot-path.ts";

const BOOT_MS = 180_000;
const MANIFEST = "test/fixtures/manifests/good/ports-modules.toml";
// acpi-index reaches the guest behind a root port on q35 (testing/qemu/machine.ts, NicSpec).
const ENO1 = { model: "virtio", acpiIndex: 1, rootPort: true } as const;
let dir: string;
let v1: string;
let v2noNic: string;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "liken-qemu-ports-"));
  v1 = await cachedRelease({ version: "1.0.0" });
  v2noNic = await cachedRelease({ version: "2.0.3", withoutModules: ["virtio_net"] });
}, 600_000);
afterAll(() => rm(dir, { recursive: true, force: true }));

async function boot(disk: string, nics: readonly VmNic[], medium?: string): Promise<string> {
  const vm = await bootMachine(disk, { nics, ...(medium ? { medium } : {}) });
  try {
    await vm.waitFor(/^liken 1\.0\.0 slot a up$/, BOOT_MS);
    return vm.console();
  } finally {
    await vm.stop();
  }
}

describe("a declared port and declared modules at boot", () => {
  it("waits 30 s for eno1 without carrier, none with it, and reports a missing port; reads back the modules", async () => {
    const disk = await installedDisk(dir, v1, MANIFEST);

    const dark = await boot(disk, [{ ...ENO1, link: "down" }, "e1000e"]);
    expect(dark).toMatch(/liken: network interface eth\d is eno1/);
    const waited = /liken: port eno1: no carrier after (\d+\.\d) s/.exec(dark);
    expect(Number(waited?.[1])).toBeGreaterThanOrEqual(30);
    expect(Number(waited?.[1])).toBeLessThan(35);
    expect(dark).toContain("liken: the kernel said: e1000e: unknown parameter 'copybrake' ignored");
    const first = await inspect(disk);
    expect(condition(first, "PortsReady")).toMatchObject({
      status: "False",
      reason: "PortWithoutCarrier",
    });
    expect(condition(first, "PortsReady")?.message).toContain("eno1 has no carrier after 30 s");
    expect(condition(first, "Ready")?.status).toBe("True");
    expect(first.status.modules).toEqual([
      { name: "e1000e", parameters: { copybreak: "128" } },
      { name: "i8042", parameters: expect.any(Object) },
    ]);
    expect(condition(first, "ModuleParametersApplied")).toMatchObject({
      status: "False",
      reason: "BuiltIn",
    });
    expect(condition(first, "ModuleParametersApplied")?.message).toContain(
      "i8042 is built into the kernel",
    );

    const lit = await boot(disk, [ENO1]);
    const carrier = /liken: port eno1: carrier after (\d+\.\d) s/.exec(lit);
    expect(Number(carrier?.[1])).toBeLessThan(10);
    expect(condition(await inspect(disk), "PortsReady")).toMatchObject({
      status: "True",
      reason: "Carrier",
    });

    const none = await boot(disk, []);
    expect(none).toContain("liken: port eno1: no such interface on this machine");
    const missing = condition(await inspect(disk), "PortsReady");
    expect(missing).toMatchObject({ status: "False", reason: "PortMissing" });
    expect(missing?.message).toContain("eno1 does not exist on this machine");
  });

  it("refuses to stage a release whose root lacks the declared port's driver", async () => {
    const disk = await installedDisk(dir, v1, MANIFEST);
    const medium = await updateMedium(dir, "2.0.3", v2noNic);
    const text = await boot(disk, [ENO1], medium);
    expect(text).toContain(
      "liken: staging refused (MissingDriver): release 2.0.3 cannot drive port eno1: its root lacks virtio_net",
    );
    expect(text).not.toMatch(/liken: staging 2\.0\.3: writing slot b/);
    expect(condition(await inspect(disk), "StagingRejected")).toMatchObject({
      status: "True",
      reason: "MissingDriver",
    });
  });
});
