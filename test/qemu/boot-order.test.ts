// The boot order of tools/qemu.ts, proven on OVMF: the stick first, then the disks in the
// order given, whatever their bus; with the stick pulled, the disks in the same order.
// Blank media make OVMF print one `BdsDxe: failed to load BootNNNN "<device>"` line per
// boot option it tries, in BootOrder, before it falls back to its EFI shell.
import { mkdtemp, rm, truncate, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, expect, it } from "vitest";
import { startVm, type Vm } from "./harness.ts";

let dir: string;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "liken-boot-order-"));
});
afterAll(() => rm(dir, { recursive: true, force: true }));

async function blankImage(name: string, bytes: number): Promise<string> {
  const file = join(dir, name);
  await writeFile(file, "");
  await truncate(file, bytes);
  return file;
}

/** The devices OVMF tries, in order, up to the EFI shell it falls back to. */
async function bootAttempts(vm: Vm): Promise<string[]> {
  const tried: string[] = [];
  for (;;) {
    const line = await vm.waitFor(/^BdsDxe: (failed to load|loading) Boot\d{4} "/, 60_000);
    const m = /^BdsDxe: (failed to load|loading) Boot\d{4} "([^"]*)"/.exec(line)!;
    if (m[1] === "loading") return tried;
    tried.push(m[2]!.trim());
  }
}

it("boots the USB stick first, then the disks in the order given; without the stick, the disks", async () => {
  const vm = await startVm({
    stick: await blankImage("stick.img", 64 * 1024 ** 2),
    // The AHCI controller is created before every disk device (a lower PCI address), so
    // an order by enumeration would try it first: the bootindex order puts it last.
    disks: [
      { path: await blankImage("nvme.img", 1024 ** 3), bus: "nvme" },
      { path: await blankImage("virtio.img", 1024 ** 3), bus: "virtio" },
      { path: await blankImage("ahci.img", 1024 ** 3), bus: "ahci" },
    ],
    relaunchOnReboot: true,
  });
  try {
    const ahci = expect.stringMatching(/^UEFI QEMU HARDDISK QM\d+$/);
    expect(await bootAttempts(vm)).toEqual([
      expect.stringMatching(/^UEFI QEMU QEMU USB HARDDRIVE /),
      "UEFI QEMU NVMe Ctrl nvme0 1",
      "UEFI Misc Device", // virtio-blk
      ahci,
    ]);

    await vm.pullStick(); // QMP device_del: DEVICE_DELETED at once, no guest help needed
    await vm.reset(); // -no-reboot ends QEMU; the harness starts it again, without the stick
    expect(vm.boots).toBe(2);
    expect(await bootAttempts(vm)).toEqual([
      "UEFI QEMU NVMe Ctrl nvme0 1",
      "UEFI Misc Device",
      ahci,
    ]);
  } finally {
    await vm.stop();
  }
});
