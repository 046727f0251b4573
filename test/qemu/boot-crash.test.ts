// A trial whose kernel crashes, and one that hangs, under OVMF and TCG. The crash goes
// through efi-pstore into the crash journal and comes back as status.lastCrash with the
// kernel's last lines; the hang is reset by the watchdog (QEMU's i6300esb). Either way the
// machine returns to 1.0.0 in slot A by itself, with the reason in systemRejection.
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { cachedRelease } from "../../image-build/cached-build.ts";
import { bootMachine, condition, inspect, installedDisk, updateMedium } from "./boot-path.ts";

const BOOT_MS = 180_000;
let dir: string;
let v1: string;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "liken-qemu-crash-"));
  v1 = await cachedRelease({ version: "1.0.0" });
}, 600_000);
afterAll(() => rm(dir, { recursive: true, force: true }));

async function tryFaulty(fault: "panic" | "hang") {
  const disk = await installedDisk(join(dir), v1);
  const medium = await updateMedium(dir, "2.0.0", await cachedRelease({ version: "2.0.0", fault }));
  const vm = await bootMachine(disk, { medium: medium, expectPanic: fault === "panic" });
  await vm.waitFor("liken: booting 2.0.0 from slot b as its one trial", BOOT_MS);
  await vm.waitFor("liken: watchdog armed for the trial", BOOT_MS);
  return { disk, vm };
}

describe("a trial that crashes or hangs", () => {
  it("crashes: back on 1.0.0 with reason Crashed, and status.lastCrash holds the panic", async () => {
    const { disk, vm } = await tryFaulty("panic");
    await vm.waitFor("Kernel panic - not syncing: sysrq triggered crash", BOOT_MS);
    await vm.waitFor(/^liken: booting 1\.0\.0 from slot a$/, BOOT_MS);
    await vm.waitFor(/liken: crash journal: 1 record, 1 new/, BOOT_MS);
    await vm.waitFor("liken: release 2.0.0 was rejected (Crashed)", BOOT_MS);
    await vm.waitFor(/^liken 1\.0\.0 slot a up$/, BOOT_MS);
    await vm.stop();

    const after = await inspect(disk);
    expect(after.status.boot.systemRejection).toMatchObject({
      version: "2.0.0",
      reason: "Crashed",
    });
    expect(condition(after, "RejectedLastBoot")).toMatchObject({
      status: "True",
      reason: "Crashed",
    });
    const crash = after.status.lastCrash;
    expect(crash).toMatchObject({ release: "2.0.0", slot: "b" });
    expect(
      crash?.lines.some((l) => l.includes("Kernel panic - not syncing: sysrq triggered crash")),
    ).toBe(true);
    expect(crash?.lines.some((l) => l.includes("sysrq: Trigger a crash"))).toBe(true);
  }, 900_000);

  it("hangs: the watchdog resets it, back on 1.0.0 with reason NoBootComplete", async () => {
    const { disk, vm } = await tryFaulty("hang");
    await vm.waitFor(/^liken: booting 1\.0\.0 from slot a$/, BOOT_MS);
    await vm.waitFor("liken: release 2.0.0 was rejected (NoBootComplete)", BOOT_MS);
    await vm.waitFor(/^liken 1\.0\.0 slot a up$/, BOOT_MS);
    expect(vm.boots).toBe(3);
    await vm.stop();
    const after = await inspect(disk);
    expect(after.status.boot.systemRejection).toMatchObject({
      version: "2.0.0",
      reason: "NoBootComplete",
    });
  }, 900_000);
});
