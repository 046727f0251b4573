// Power lost in the middle of staging, under OVMF and TCG: QEMU quits while the agent is
// writing slot B. The disk then holds a half-written slot B with no entry and no
// release.toml, so the next boot comes up on the proven slot A, and staging starts over and
// finishes: the new release is tried and blessed.
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { cachedRelease } from "../../testing/cached-build.ts";
import { bootMachine, inspect, installedDisk, updateMedium } from "./boot-path.ts";

const BOOT_MS = 180_000;
let dir: string;
let v1: string;
let v2: string;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "liken-qemu-power-"));
  v1 = await cachedRelease({ version: "1.0.0" });
  // 160 MiB of noise in the root filesystem: the slot write lasts long enough to cut.
  v2 = await cachedRelease({ version: "2.0.0", noiseMiB: 160 });
}, 600_000);
afterAll(() => rm(dir, { recursive: true, force: true }));

describe("a power loss while staging", () => {
  it("comes up on the proven slot, and staging starts over", async () => {
    const disk = await installedDisk(dir, v1);
    const medium = await updateMedium(dir, "2.0.0", v2);
    const vm = await bootMachine(disk, { medium });
    await vm.waitFor("liken: staging 2.0.0: writing slot b: 25%", BOOT_MS);
    await vm.qmp.execute("quit");
    await vm.waitForExit(30_000);
    expect(vm.console()).not.toContain("staging 2.0.0: writing slot b: 100%");

    const cut = await inspect(disk);
    expect(cut.slots.b).toEqual({ version: null, hashMatches: null });
    expect(cut.entries.map((e) => e.fileName)).toEqual(["liken-a-1.0.0.conf"]);

    const again = await bootMachine(disk, { medium, varsFrom: vm.varsFile });
    await again.waitFor(/^liken: booting 1\.0\.0 from slot a$/, BOOT_MS);
    await again.waitFor("liken: staging 2.0.0 into slot b", BOOT_MS);
    await again.waitFor("liken: staging 2.0.0: writing slot b: 100%", BOOT_MS);
    await again.waitFor("liken: booting 2.0.0 from slot b as its one trial", BOOT_MS);
    await again.waitFor("liken: trial passed: 2.0.0 in slot b is the proven release", BOOT_MS);
    await again.waitFor(/^liken 2\.0\.0 slot b up$/, BOOT_MS);
    await again.stop();
    const done = await inspect(disk);
    expect(done.slots.b).toEqual({ version: "2.0.0", hashMatches: true });
  }, 900_000);
});
