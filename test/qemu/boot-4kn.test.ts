// A 4Kn system disk end to end under OVMF and TCG: an NVMe namespace of 4096-byte logical
// and physical blocks, installed with `install --sector-size 4096` (GPT, the ESP's FAT32 in
// 4 KiB sectors, the claim and the journal), boots 1.0.0 to `up`; an update that panics in
// its trial is rejected (Crashed, the crash record in the 4Kn journal) and the machine
// returns to slot A by itself. Before the ESP was made in the disk's own sector size, the
// boot agent held at "FAT-fs: logical sector size too small for device".
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, expect, it } from "vitest";
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
const MANIFEST_4KN = "test/fixtures/manifests/good/small-4kn.toml";
const NVME_4KN = { bus: "nvme", logicalBlockSize: 4096, physicalBlockSize: 4096 } as const;
let dir: string;
let v1: string;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "liken-qemu-4kn-"));
  v1 = await cachedRelease({ version: "1.0.0" });
}, 600_000);
afterAll(() => rm(dir, { recursive: true, force: true }));

it("a 4Kn NVMe system disk boots 1.0.0, and returns to it after a trial that panics", async () => {
  const disk = await installedDisk(dir, v1, MANIFEST_4KN, { sectorSize: 4096 });
  const installed = await inspect(disk);
  expect(installed.partitions.map((p) => p.label).slice(0, 5)).toEqual([
    "liken-esp",
    "liken-a",
    "liken-b",
    "liken-journal",
    "liken-state",
  ]);

  const panic = await cachedRelease({ version: "2.0.0", fault: "panic" });
  const vm = await bootMachine(disk, {
    as: NVME_4KN,
    medium: await updateMedium(dir, "2.0.0", panic),
    expectPanic: true,
  });
  await vm.waitFor(/^liken: booting 1\.0\.0 from slot a$/, BOOT_MS);
  await vm.waitFor("liken: staging 2.0.0 into slot b", BOOT_MS);
  await vm.waitFor("liken: booting 2.0.0 from slot b as its one trial", BOOT_MS);
  await vm.waitFor("Kernel panic - not syncing: sysrq triggered crash", BOOT_MS);
  await returnsToProven(vm, "2.0.0", "Crashed");
  expect(vm.console()).toMatch(/liken: crash journal: 1 record, 1 new/);
  // The GPT is in 4 KiB sectors only: a guest that saw 512-byte blocks would find no slot.
  expect(vm.console()).not.toMatch(/logical sector size too small|the boot holds here/);

  const after = await inspect(disk);
  expect(after.status).toMatchObject({ phase: "Running", version: "1.0.0", slot: "a" });
  expect(condition(after, "RejectedLastBoot")).toMatchObject({ status: "True", reason: "Crashed" });
  expect(after.crashes[0]?.release).toBe("2.0.0");
  expect(after.slots.b).toMatchObject({ version: "2.0.0", hashMatches: true });
}, 1_200_000);

it("a 4Kn virtio disk and a 512e one (512-byte logical, 4096-byte physical blocks) boot 1.0.0", async () => {
  for (const [name, sectorSize, as] of [
    ["virtio-4kn.img", 4096, { bus: "virtio", logicalBlockSize: 4096, physicalBlockSize: 4096 }],
    ["virtio-512e.img", 512, { bus: "virtio", logicalBlockSize: 512, physicalBlockSize: 4096 }],
  ] as const) {
    const manifest = sectorSize === 4096 ? MANIFEST_4KN : undefined;
    const disk = await installedDisk(dir, v1, manifest, { sectorSize, name });
    const vm = await bootMachine(disk, { as });
    expect(await vm.waitFor(/^liken 1\.0\.0 slot a up$/, BOOT_MS)).toBe("liken 1.0.0 slot a up");
    await vm.stop();
    expect((await inspect(disk)).status).toMatchObject({ phase: "Running", slot: "a" });
  }
}, 1_200_000);
