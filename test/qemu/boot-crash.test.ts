// A trial whose kernel crashes during its health checks, then one whose root hangs before
// anything pings the watchdog, on one installed disk under OVMF and TCG. The crash goes
// through efi-pstore into the crash journal and comes back as status.lastCrash with the
// kernel's last lines; the hang is reset by the watchdog the initramfs armed (QEMU's
// i6300esb). Either way the machine returns to 1.0.0 in slot A by itself, with the reason
// in systemRejection.
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { cachedRelease } from "../../testing/cached-build.ts";
import {
  bootMachine,
  condition,
  inspect,
  installedDisk,
  returnsToProven,
  updateMedium,
} from "./boot-path.ts";

const BOOT_MS = 180_000;
let dir: string;
let v1: string;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "liken-qemu-crash-"));
  v1 = await cachedRelease({ version: "1.0.0" });
}, 600_000);
afterAll(() => rm(dir, { recursive: true, force: true }));

describe("a trial that crashes, then one that hangs", () => {
  it("comes back to 1.0.0 each time: Crashed with the panic in status.lastCrash, then NoBootComplete after the i6300esb reset", async () => {
    const disk = await installedDisk(dir, v1);
    const panic = await cachedRelease({ version: "2.0.0", fault: "panic" });
    const vm = await bootMachine(disk, {
      medium: await updateMedium(dir, "2.0.0", panic),
      expectPanic: true,
    });
    await vm.waitFor("liken: booting 2.0.0 from slot b as its one trial", BOOT_MS);
    await vm.waitFor(
      "liken: watchdog i6300ESB timer pinged by the boot agent for the trial",
      BOOT_MS,
    );
    await vm.waitFor("Kernel panic - not syncing: sysrq triggered crash", BOOT_MS);
    await returnsToProven(vm, "2.0.0", "Crashed");
    expect(vm.console()).toMatch(/liken: crash journal: 1 record, 1 new/);

    const crashed = await inspect(disk);
    expect(crashed.status.boot.systemRejection).toMatchObject({
      version: "2.0.0",
      reason: "Crashed",
    });
    expect(condition(crashed, "RejectedLastBoot")).toMatchObject({
      status: "True",
      reason: "Crashed",
    });
    const crash = crashed.status.lastCrash;
    expect(crash).toMatchObject({ release: "2.0.0", slot: "b" });
    expect(
      crash?.lines.some((l) => l.includes("Kernel panic - not syncing: sysrq triggered crash")),
    ).toBe(true);
    expect(crash?.lines.some((l) => l.includes("sysrq: Trigger a crash"))).toBe(true);

    const hang = await cachedRelease({ version: "2.0.1", fault: "hang" });
    const hung = await bootMachine(disk, { medium: await updateMedium(dir, "2.0.1", hang) });
    await hung.waitFor("liken: watchdog i6300ESB timer armed for the trial of 2.0.1", BOOT_MS);
    await hung.waitFor("liken: the root hangs", BOOT_MS);
    await returnsToProven(hung, "2.0.1", "NoBootComplete");
    expect(hung.boots).toBe(3);
    // modprobe.d's timeout: about 30 s from the last ping to the reset, not the driver's 60.
    expect(hung.console()).toMatch(/initialized\. heartbeat=15 sec/);
    const reset = await inspect(disk);
    expect(reset.status.boot.systemRejection).toMatchObject({
      version: "2.0.1",
      reason: "NoBootComplete",
    });
  }, 1_500_000);
});
