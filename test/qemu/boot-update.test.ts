// The update path end to end under OVMF and TCG: a spec on an update medium names a new
// release; the machine stages it into the other slot and, with the default reboot policy
// (Manual), waits for a person; the reset boots it once as a trial, which blesses it and
// stays on it; the next release, approved by its spec (reboot = "now"), goes back to slot
// A at once (the trial sorts first in either slot).
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { cachedRelease } from "../../testing/cached-build.ts";
import { bootMachine, condition, inspect, installedDisk, updateMedium } from "./boot-path.ts";

const BOOT_MS = 180_000;
let dir: string;
const releases: Record<string, string> = {};

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "liken-qemu-update-"));
  for (const version of ["1.0.0", "2.0.0", "3.0.0"])
    releases[version] = await cachedRelease({ version });
}, 600_000);
afterAll(() => rm(dir, { recursive: true, force: true }));

describe("an update", () => {
  it("waits for a person (Manual, the default): 2.0.0 boots in slot B only after a reset, once as a trial, and stays; then 3.0.0, approved, goes to slot A", async () => {
    const disk = await installedDisk(dir, releases["1.0.0"] as string);
    const medium2 = await updateMedium(dir, "2.0.0", releases["2.0.0"] as string, {
      approve: false,
    });
    const vm = await bootMachine(disk, { medium: medium2 });
    await vm.waitFor("liken: booting 1.0.0 from slot a", BOOT_MS);
    await vm.waitFor("liken: staging 2.0.0 into slot b", BOOT_MS);
    await vm.waitFor(
      "liken: 2.0.0 is staged in slot b and boots once as a trial at the next reboot (reboot_policy Manual)",
      BOOT_MS,
    );
    await vm.waitFor(/^liken 1\.0\.0 slot a up$/, BOOT_MS);
    const pending = await inspect(disk);
    expect(condition(pending, "RebootPending")).toMatchObject({
      status: "True",
      reason: "StagedRelease",
    });
    // The manual's promise: nothing reboots the machine but a person.
    await new Promise((resolve) => setTimeout(resolve, 120_000));
    expect(vm.boots).toBe(1);
    expect(vm.console()).not.toMatch(/rebooting into 2\.0\.0/);
    await vm.reset();
    await vm.waitFor("liken: booting 2.0.0 from slot b as its one trial", BOOT_MS);
    await vm.waitFor("liken: trial passed: 2.0.0 in slot b is the proven release", BOOT_MS);
    await vm.waitFor(/^liken 2\.0\.0 slot b up$/, BOOT_MS);
    // The trial's own status: the watchdog that armed it, the verified root it ran from.
    const trial = await inspect(disk);
    const slotB = trial.partitions.find((p) => p.label === "liken-b")?.partUuid.toLowerCase();
    expect(trial.status.boot).toMatchObject({
      slot: "b",
      trial: true,
      watchdog: "i6300ESB timer",
      root: { partUuid: slotB, verity: true },
    });
    await vm.reset();
    await vm.waitFor(/^liken: booting 2\.0\.0 from slot b$/, BOOT_MS);
    await vm.waitFor(/^liken 2\.0\.0 slot b up$/, BOOT_MS);
    expect(vm.boots).toBe(3);
    await vm.stop();

    const after2 = await inspect(disk);
    expect(after2.status).toMatchObject({ phase: "Running", version: "2.0.0", slot: "b" });
    expect(after2.status.boot).toMatchObject({ slot: "b", version: "2.0.0", trial: false });
    expect(condition(after2, "Ready")?.status).toBe("True");
    expect(condition(after2, "RejectedLastBoot")?.status).toBe("False");
    expect(condition(after2, "RebootPending")?.status).toBe("False");
    expect(after2.slots).toEqual({
      a: { version: "1.0.0", hashMatches: true },
      b: { version: "2.0.0", hashMatches: true },
    });
    expect(after2.entries.map((e) => e.fileName).sort()).toEqual([
      "liken-a-1.0.0.conf",
      "liken-b-2.0.0.conf",
    ]);

    const medium3 = await updateMedium(dir, "3.0.0", releases["3.0.0"] as string);
    const next = await bootMachine(disk, { medium: medium3 });
    await next.waitFor("liken: staging 3.0.0 into slot a", BOOT_MS);
    await next.waitFor("liken: rebooting into 3.0.0 (slot a) for its one trial boot", BOOT_MS);
    await next.waitFor("liken: booting 3.0.0 from slot a as its one trial", BOOT_MS);
    await next.waitFor("liken: trial passed: 3.0.0 in slot a is the proven release", BOOT_MS);
    await next.waitFor(/^liken 3\.0\.0 slot a up$/, BOOT_MS);
    await next.stop();
    const after3 = await inspect(disk);
    expect(after3.status.boot).toMatchObject({ slot: "a", version: "3.0.0" });
    expect(after3.slots.a).toEqual({ version: "3.0.0", hashMatches: true });
    expect(after3.entries.map((e) => e.fileName).sort()).toEqual([
      "liken-a-3.0.0.conf",
      "liken-b-2.0.0.conf",
    ]);
  }, 1_500_000);
});
