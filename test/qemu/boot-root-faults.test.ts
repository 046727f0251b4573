// Trials that never reach a healthy root, one after the other on one installed disk, under
// OVMF and TCG: a root whose init exits (the kernel panics: Crashed); a root that hangs on
// a q35 whose only watchdog is the chipset's TCO, as on Intel servers (iTCO_wdt resets it:
// NoBootComplete); a slot with one byte changed after its hash tree was made (dm-verity
// refuses it in the initramfs: NoBootComplete with the initramfs's reason); and a hang on
// an i440fx with only an ib700 card, which nothing can identify (softdog resets it). Each
// time the machine comes back to 1.0.0 in slot A by itself.
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
  dir = await mkdtemp(join(tmpdir(), "liken-qemu-root-faults-"));
  v1 = await cachedRelease({ version: "1.0.0" });
}, 600_000);
afterAll(() => rm(dir, { recursive: true, force: true }));

describe("a trial that never reaches a healthy root", () => {
  it("comes back to 1.0.0 from an init that exits, a hang the chipset's TCO resets, a changed byte in the slot, and a hang softdog resets", async () => {
    const disk = await installedDisk(dir, v1);

    const rootFault = await cachedRelease({ version: "2.0.0", fault: "root" });
    const vm = await bootMachine(disk, {
      medium: await updateMedium(dir, "2.0.0", rootFault),
      expectPanic: true,
    });
    await vm.waitFor("liken: watchdog i6300ESB timer armed for the trial of 2.0.0", BOOT_MS);
    await vm.waitFor("liken: the root's init exits", BOOT_MS);
    await vm.waitFor("Kernel panic - not syncing: Attempted to kill init!", BOOT_MS);
    await returnsToProven(vm, "2.0.0", "Crashed");
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

    // The chipset's TCO is this machine's only watchdog (no i6300esb): iTCO_wdt resets it.
    const hangFault = await cachedRelease({ version: "2.0.1", fault: "hang" });
    const hung = await bootMachine(disk, {
      medium: await updateMedium(dir, "2.0.1", hangFault),
      watchdog: "none",
    });
    await hung.waitFor("liken: watchdog iTCO_wdt armed for the trial of 2.0.1", BOOT_MS);
    await hung.waitFor("liken: the root hangs", BOOT_MS);
    await returnsToProven(hung, "2.0.1", "NoBootComplete");

    const verityFault = await cachedRelease({ version: "2.0.2", fault: "verity" });
    const changed = await bootMachine(disk, {
      medium: await updateMedium(dir, "2.0.2", verityFault),
    });
    await changed.waitFor("liken: staged 2.0.2 in slot b with one try", BOOT_MS);
    await changed.waitFor("liken: the root of slot b does not mount (verity or erofs)", BOOT_MS);
    await returnsToProven(changed, "2.0.2", "NoBootComplete");
    expect(changed.console()).toMatch(/device-mapper: verity: .*data block 0 is corrupted/);
    expect(changed.console()).not.toMatch(/liken: booting 2\.0\.2/);
    const refused = await inspect(disk);
    expect(refused.status.boot.systemRejection).toMatchObject({
      version: "2.0.2",
      reason: "NoBootComplete",
    });
    expect(refused.status.boot.systemRejection?.message).toMatch(
      /^the trial's initramfs did not reach the root: the root of slot b does not mount/,
    );

    // A machine with no chipset watchdog (i440fx) and an ib700 card, which nothing
    // identifies: softdog, the floor, resets the hang.
    const hangAgain = await cachedRelease({ version: "2.0.3", fault: "hang" });
    const floor = await bootMachine(disk, {
      medium: await updateMedium(dir, "2.0.3", hangAgain),
      machine: "pc",
      watchdog: "ib700",
    });
    await floor.waitFor("liken: watchdog Software Watchdog armed for the trial of 2.0.3", BOOT_MS);
    await floor.waitFor("liken: the root hangs", BOOT_MS);
    await returnsToProven(floor, "2.0.3", "NoBootComplete");
    expect(floor.console()).toMatch(/softdog: initialized\. soft_noboot=0 soft_margin=30 sec/);

    const after = await inspect(disk);
    expect(after.status).toMatchObject({ version: "1.0.0", slot: "a" });
    expect(after.status.boot.systemRejection).toMatchObject({
      version: "2.0.3",
      reason: "NoBootComplete",
    });
    expect(condition(after, "RejectedLastBoot")?.status).toBe("True");
    expect(after.entries.map((e) => e.fileName)).toEqual(["liken-a-1.0.0.conf"]);
  }, 1_800_000);
});
