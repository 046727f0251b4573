// Trials that never reach a healthy root, one after the other on one installed disk, under
// OVMF and TCG: a root whose init exits (the kernel panics: Crashed); a slot with one byte
// changed after its hash tree was made (dm-verity refuses it in the initramfs:
// NoBootComplete with the initramfs's reason), on a machine whose only watchdog the release
// has no driver for (softdog arms the trial); and a root that hangs on a machine whose only
// watchdog is the chipset's TCO, as on Intel servers (iTCO_wdt resets it: NoBootComplete).
// Each time the machine comes back to 1.0.0 in slot A by itself.
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
  dir = await mkdtemp(join(tmpdir(), "liken-qemu-root-faults-"));
  v1 = await cachedRelease({ version: "1.0.0" });
}, 600_000);
afterAll(() => rm(dir, { recursive: true, force: true }));

describe("a trial that never reaches a healthy root", () => {
  it("comes back to 1.0.0 from an init that exits, a changed byte in the slot (softdog armed), and a hang the chipset's TCO resets", async () => {
    const disk = await installedDisk(dir, v1);

    const rootFault = await cachedRelease({ version: "2.0.0", fault: "root" });
    const vm = await bootMachine(disk, {
      medium: await updateMedium(dir, "2.0.0", rootFault),
      expectPanic: true,
    });
    await vm.waitFor("liken: watchdog i6300ESB timer armed for the trial of 2.0.0", BOOT_MS);
    await vm.waitFor("liken: the root's init exits", BOOT_MS);
    await vm.waitFor("Kernel panic - not syncing: Attempted to kill init!", BOOT_MS);
    await vm.waitFor(/^liken: booting 1\.0\.0 from slot a$/, BOOT_MS);
    await vm.waitFor("liken: release 2.0.0 was rejected (Crashed)", BOOT_MS);
    await vm.waitFor(/^liken 1\.0\.0 slot a up$/, BOOT_MS);
    await vm.stop();
    const crashed = await inspect(disk);
    expect(crashed.status.boot.systemRejection).toMatchObject({
      version: "2.0.0",
      slot: "b",
      reason: "Crashed",
    });
    expect(crashed.status.lastCrash).toMatchObject({ release: "2.0.0", slot: "b" });
    expect(crashed.status.lastCrash?.lines.some((l) => l.includes("Attempted to kill init!"))).toBe(
      true,
    );

    const verityFault = await cachedRelease({ version: "2.0.1", fault: "verity" });
    const second = await bootMachine(disk, {
      medium: await updateMedium(dir, "2.0.1", verityFault),
    });
    await second.waitFor("liken: staged 2.0.1 in slot b with one try", BOOT_MS);
    await second.waitFor("liken: the root of slot b does not mount (verity or erofs)", BOOT_MS);
    await second.waitFor(/^liken: booting 1\.0\.0 from slot a$/, BOOT_MS);
    await second.waitFor("liken: release 2.0.1 was rejected (NoBootComplete)", BOOT_MS);
    await second.waitFor(/^liken 1\.0\.0 slot a up$/, BOOT_MS);
    await second.stop();
    expect(second.console()).toMatch(/device-mapper: verity: .*data block 0 is corrupted/);
    expect(second.console()).not.toMatch(/liken: booting 2\.0\.1/);
    const refused = await inspect(disk);
    expect(refused.status.boot.systemRejection).toMatchObject({
      version: "2.0.1",
      reason: "NoBootComplete",
    });
    expect(refused.status.boot.systemRejection?.message).toMatch(
      /^the trial's initramfs did not reach the root: the root of slot b does not mount/,
    );

    const hangFault = await cachedRelease({ version: "2.0.2", fault: "hang" });
    const third = await bootMachine(disk, {
      medium: await updateMedium(dir, "2.0.2", hangFault),
      watchdog: false,
    });
    await third.waitFor("liken: watchdog iTCO_wdt armed for the trial of 2.0.2", BOOT_MS);
    await third.waitFor("liken: the root hangs", BOOT_MS);
    await third.waitFor(/^liken: booting 1\.0\.0 from slot a$/, BOOT_MS);
    await third.waitFor("liken: release 2.0.2 was rejected (NoBootComplete)", BOOT_MS);
    await third.waitFor(/^liken 1\.0\.0 slot a up$/, BOOT_MS);
    await third.stop();
    const reset = await inspect(disk);
    expect(reset.status).toMatchObject({ version: "1.0.0", slot: "a" });
    expect(reset.status.boot.systemRejection).toMatchObject({
      version: "2.0.2",
      reason: "NoBootComplete",
    });
    expect(condition(reset, "RejectedLastBoot")?.status).toBe("True");
    expect(reset.entries.map((e) => e.fileName)).toEqual(["liken-a-1.0.0.conf"]);
  }, 1_800_000);
});
