// A disk behind a server's RAID controller, from the default stick, unattended as leader-1:
// QEMU's megasas-gen2 (an LSI MegaRAID SAS 2108: megaraid_sas, the driver of Dell's PERC
// and its kin), and mptsas1068 (an LSI SAS1068: mptsas, the Fusion-MPT HBA driver), each
// with a serial and a WWN. The install completes
// and `inspect` reads it back. OVMF has no driver for the controller (a real card brings
// its own in an option ROM), so the firmware cannot start systemd-boot from it: the same ESP, copied to a small virtio disk, starts
// the entry, and the release's initramfs finds slot A on the controller by its modalias
// driver and boots `up` (docs/install.md, Controllers and sector sizes).
import { mkdtemp, open, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, beforeAll, expect, it } from "vitest";
import { PARTITION_TYPES } from "../../formats/gpt-types.ts";
import { buildGptImage } from "../../image-build/gpt-image.ts";
import type { DiskBus } from "../../testing/qemu/index.ts";
import { sparseFile } from "../disk-files.ts";
import { inspect } from "./boot-path.ts";
import { unattendedDefaultStick } from "./default-stick.ts";
import { startVm, stopAllVms } from "./harness.ts";

const GIB = 1024 ** 3;
const UP = /^liken 1\.0\.0 slot a up$/;
let dir: string;
let stick: string;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "liken-qemu-controllers-"));
  stick = await unattendedDefaultStick();
}, 600_000);
afterEach(stopAllVms);
afterAll(() => rm(dir, { recursive: true, force: true }));

/** The ESP's bytes of an installed disk, as a virtio disk of its own the firmware boots. */
async function espDisk(disk: string, name: string): Promise<string> {
  const { partitions } = await inspect(disk);
  const esp = partitions.find((p) => p.label === "liken-esp") as unknown as {
    start: number;
    size: number;
  };
  const image = join(dir, `${name}-esp.img`);
  const from = await open(disk, "r");
  const to = await open(image, "w");
  try {
    const chunk = Buffer.alloc(4 * 1024 * 1024);
    for (let at = 0; at < esp.size; at += chunk.length) {
      const { bytesRead } = await from.read(chunk, 0, chunk.length, esp.start + at);
      await to.write(chunk, 0, bytesRead, at);
    }
  } finally {
    await from.close();
    await to.close();
  }
  const out = join(dir, `${name}-boot.img`);
  await buildGptImage(out, "4C494B45-4553-5043-4F50-590000000000", [
    {
      name: "esp-copy",
      typeGuid: PARTITION_TYPES.esp,
      uuid: "4C494B45-4553-5043-4F50-590000000001",
      image,
    },
  ]);
  await rm(image);
  return out;
}

for (const [bus, driver, wwn] of [
  ["megasas", "megaraid_sas", "0x5000c50015ea71ac"],
  ["mptsas", "mptsas", "0x5000c50015ea71ad"],
] as [DiskBus, string, string][]) {
  it(`installs onto a disk behind ${bus} (${driver}) and boots it with the ESP on a virtio disk`, async () => {
    const disk = await sparseFile(join(dir, `${bus}.img`), 32 * GIB);
    const serial = `${bus.toUpperCase()}-0001`;
    const vm = await startVm({ stick, disks: [{ path: disk, bus, serial, wwn }] });
    await vm.waitFor(/liken-stick: payload \/dev\/sd\w+ verified/, 240_000);
    const installed = await vm.waitFor(
      /liken-stick: installed as leader-1 on \/dev\/sd\w+/,
      600_000,
    );
    await vm.waitForExit(120_000);
    expect(installed).toMatch(/install [0-9a-f-]{36}$/);

    const read = await inspect(disk);
    expect(read.slots.a).toEqual({ version: "1.0.0", hashMatches: true });
    expect(read.entries.map((e) => e.fileName)).toEqual(["liken-a-1.0.0.conf"]);

    const boot = await startVm({
      disks: [
        { path: await espDisk(disk, bus), bus: "virtio" },
        { path: disk, bus, serial, wwn },
      ],
    });
    await boot.waitFor(/^liken: slot a verified by dm-verity/, 240_000);
    expect(await boot.waitFor(UP, 240_000)).toBe("liken 1.0.0 slot a up");
    await boot.stop();
    const after = await inspect(disk);
    expect(after.status).toMatchObject({ phase: "Running", version: "1.0.0", slot: "a" });
  }, 1_500_000);
}
