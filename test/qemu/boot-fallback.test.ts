// A failed trial end to end under OVMF and TCG: 2.0.0 fails its health check, the machine
// returns to 1.0.0 in slot A by itself and records RejectedLastBoot; it never boots 2.0.0
// again while the spec names it; a release without this machine's disk driver and a spec
// that shrinks a storage role are refused before anything is written; a spec naming 2.0.1
// is staged, tried and blessed.
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { cachedRelease } from "../../testing/cached-build.ts";
import { bootMachine, condition, inspect, installedDisk, updateMedium } from "./boot-path.ts";

const BOOT_MS = 180_000;
let dir: string;
let v1: string;
let v2bad: string;
let v201: string;
let v2noDriver: string;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "liken-qemu-fallback-"));
  v1 = await cachedRelease({ version: "1.0.0" });
  v2bad = await cachedRelease({ version: "2.0.0", fault: "health" });
  v201 = await cachedRelease({ version: "2.0.1" });
  v2noDriver = await cachedRelease({ version: "2.0.2", withoutModules: ["virtio_blk"] });
}, 600_000);
afterAll(() => rm(dir, { recursive: true, force: true }));

describe("a trial that fails its health check", () => {
  it("returns to 1.0.0 in slot A, records RejectedLastBoot, does not try 2.0.0 again, then blesses 2.0.1", async () => {
    const disk = await installedDisk(dir, v1);
    const medium = await updateMedium(dir, "2.0.0", v2bad);
    const vm = await bootMachine(disk, { medium: medium });
    await vm.waitFor("liken: staging 2.0.0 into slot b", BOOT_MS);
    await vm.waitFor("liken: booting 2.0.0 from slot b as its one trial", BOOT_MS);
    await vm.waitFor("liken: trial of 2.0.0 failed: the release's own check failed", BOOT_MS);
    await vm.waitFor("liken: the machine returns to slot a", BOOT_MS);
    await vm.waitFor(/^liken: booting 1\.0\.0 from slot a$/, BOOT_MS);
    await vm.waitFor("liken: release 2.0.0 was rejected (HealthCheckFailed)", BOOT_MS);
    await vm.waitFor("liken: staging refused (VersionRejected)", BOOT_MS);
    await vm.waitFor(/^liken 1\.0\.0 slot a up$/, BOOT_MS);
    for (let boot = 0; boot < 2; boot++) {
      await vm.reset();
      await vm.waitFor(/^liken: booting 1\.0\.0 from slot a$/, BOOT_MS);
      await vm.waitFor("liken: staging refused (VersionRejected)", BOOT_MS);
      await vm.waitFor(/^liken 1\.0\.0 slot a up$/, BOOT_MS);
    }
    await vm.stop();
    expect(vm.console().match(/liken: booting 2\.0\.0/g)).toHaveLength(1);

    const rejected = await inspect(disk);
    expect(rejected.status).toMatchObject({ phase: "Running", version: "1.0.0", slot: "a" });
    expect(condition(rejected, "RejectedLastBoot")).toMatchObject({
      status: "True",
      reason: "HealthCheckFailed",
    });
    expect(rejected.status.boot.systemRejection).toMatchObject({
      version: "2.0.0",
      slot: "b",
      reason: "HealthCheckFailed",
      attempts: 1,
    });
    expect(condition(rejected, "StagingRejected")).toMatchObject({
      status: "True",
      reason: "VersionRejected",
    });
    expect(rejected.entries.map((e) => e.fileName)).toEqual(["liken-a-1.0.0.conf"]);

    // A release that could not find this machine's disk is refused before a byte is written.
    const noDriver = await bootMachine(disk, {
      medium: await updateMedium(dir, "2.0.2", v2noDriver),
    });
    await noDriver.waitFor(
      "liken: staging refused (MissingDriver): release 2.0.2 cannot boot from disk vda: its boot path lacks virtio_blk",
      BOOT_MS,
    );
    await noDriver.waitFor(/^liken 1\.0\.0 slot a up$/, BOOT_MS);
    await noDriver.stop();
    expect(noDriver.console()).not.toMatch(/liken: staging 2\.0\.2: writing slot b/);
    expect(condition(await inspect(disk), "StagingRejected")).toMatchObject({
      status: "True",
      reason: "MissingDriver",
    });

    // A spec whose storage role is smaller than its partition (a layout from another install).
    const shrink = await bootMachine(disk, {
      medium: await updateMedium(dir, "2.0.3", null, {
        specExtra: '[[storage]]\nrole = "data"\nsize = "512MiB"\n',
      }),
    });
    await shrink.waitFor(
      "liken: staging refused (StorageShrink): storage role data is 512MiB in the spec and 1GiB on disk vda (partition liken-data)",
      BOOT_MS,
    );
    await shrink.waitFor(/^liken 1\.0\.0 slot a up$/, BOOT_MS);
    await shrink.stop();
    const shrunk = await inspect(disk);
    expect(condition(shrunk, "StagingRejected")).toMatchObject({
      status: "True",
      reason: "StorageShrink",
      message: expect.stringContaining("512MiB in the spec and 1GiB on disk vda"),
    });

    const fixed = await updateMedium(dir, "2.0.1", v201);
    const next = await bootMachine(disk, { medium: fixed });
    await next.waitFor("liken: staging 2.0.1 into slot b", BOOT_MS);
    await next.waitFor("liken: booting 2.0.1 from slot b as its one trial", BOOT_MS);
    await next.waitFor("liken: trial passed: 2.0.1 in slot b is the proven release", BOOT_MS);
    await next.waitFor(/^liken 2\.0\.1 slot b up$/, BOOT_MS);
    await next.stop();
    const blessed = await inspect(disk);
    expect(blessed.status.boot).toMatchObject({
      slot: "b",
      version: "2.0.1",
      systemRejection: null,
    });
    expect(condition(blessed, "RejectedLastBoot")?.status).toBe("False");
    expect(condition(blessed, "StagingRejected")?.status).toBe("False");
  }, 1_500_000);
});
