// What the stick sees of a server's disks, from the default stick, unattended as leader-1:
// - one disk image reached through two SCSI controllers (virtio-scsi) with the same serial
//   and WWN, as a dual-ported SAS drive on two HBAs is: both paths read `multipath`, neither
//   is written, and the image is byte-identical afterwards;
// - a serial and a WWN on every bus, from sysfs (the stick has no udev): SCSI behind
//   megasas-gen2, SATA behind AHCI, NVMe and virtio, in `disks --json` in the shell that
//   the refused install leaves;
// - a disk behind virtio-scsi, which OVMF boots: the install completes, and the disk boots
//   `liken 1.0.0 slot a up`.
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, beforeAll, expect, it } from "vitest";
import { contentDigest, sparseFile } from "../disk-files.ts";
import { inspect } from "./boot-path.ts";
import { unattendedDefaultStick } from "./default-stick.ts";
import { shell, waitForShell } from "./guest-shell.ts";
import { startVm, stopAllVms } from "./harness.ts";

const GIB = 1024 ** 3;
let dir: string;
let stick: string;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "liken-qemu-server-disks-"));
  stick = await unattendedDefaultStick();
}, 600_000);
afterEach(stopAllVms);
afterAll(() => rm(dir, { recursive: true, force: true }));

interface Listed {
  readonly path: string;
  readonly verdict: string;
  readonly reasons: readonly string[];
  readonly serial?: string;
  readonly wwn?: string;
  readonly transport?: string;
}

it("never writes a disk reached through two controllers, and shows serial and WWN on every bus", async () => {
  // Large enough for leader-1: only its two paths keep it from being the system disk. The
  // others are blank and too small for leader-1's system partitions, so the install refuses.
  const shared = await sparseFile(join(dir, "dual-port.img"), 32 * GIB);
  const blank = await contentDigest(shared);
  const path = (name: string) => sparseFile(join(dir, `${name}.img`), GIB);
  const sas = { serial: "DUALPORT-01", wwn: "0x5000c50015ea71b0" };
  const vm = await startVm({
    stick,
    disks: [
      { path: shared, bus: "virtio-scsi", ...sas },
      { path: shared, bus: "virtio-scsi", ...sas, secondPath: true },
      { path: await path("raid"), bus: "megasas", serial: "RAID-VD-01", wwn: "0x600605b00d1e2f30" },
      { path: await path("sata"), bus: "ahci", serial: "SATA-01", wwn: "0x50014ee20b6c3a12" },
      { path: await path("nvme"), bus: "nvme", serial: "NVME-01" },
      { path: await path("virtio"), bus: "virtio", serial: "VIRTIO-01" },
    ],
  });
  await vm.waitFor(/liken-stick: payload \/dev\/sd\w+ verified/, 240_000);
  await vm.waitFor(/^liken-stick unattended: (?!warning: )/, 600_000);
  await vm.waitFor(/a shell follows/, 30_000);
  await waitForShell(vm);
  await shell(
    vm,
    'liken-stick disks --json > /tmp/disks.json; echo "listed ""disks"',
    /^listed disks$/,
    180_000,
  );
  const line = await shell(
    vm,
    `echo "file""-begin $(base64 -w 0 < /tmp/disks.json) file""-end"`,
    /^file-begin \S* file-end$/,
    120_000,
  );
  await vm.stop();
  const disks = JSON.parse(
    Buffer.from(line.split(" ")[1] ?? "", "base64").toString("utf8"),
  ) as Listed[];
  const by = (serial: string) => disks.filter((d) => d.serial === serial);

  const paths = by(sas.serial);
  expect(paths).toHaveLength(2);
  const [one, two] = paths as [Listed, Listed];
  expect(one).toMatchObject({ verdict: "ineligible", wwn: sas.wwn });
  expect(one.reasons).toContain(`multipath:${two.path}`);
  expect(two.reasons).toContain(`multipath:${one.path}`);
  expect(by("RAID-VD-01")).toEqual([expect.objectContaining({ wwn: "0x600605b00d1e2f30" })]);
  expect(by("SATA-01")).toEqual([
    expect.objectContaining({ wwn: "0x50014ee20b6c3a12", transport: "sata" }),
  ]);
  expect(by("NVME-01")).toEqual([
    expect.objectContaining({ transport: "nvme", wwn: expect.any(String) }),
  ]);
  expect(by("VIRTIO-01")).toHaveLength(1);
  expect(vm.console()).not.toMatch(/» writing the liken claim/);
  expect(await contentDigest(shared)).toBe(blank);
}, 1_500_000);

it("installs onto a disk behind virtio-scsi, which the firmware boots", async () => {
  const disk = await sparseFile(join(dir, "virtio-scsi.img"), 32 * GIB);
  const spec = {
    path: disk,
    bus: "virtio-scsi",
    serial: "VSCSI-01",
    wwn: "0x5000c50015ea71c0",
  } as const;
  const vm = await startVm({ stick, disks: [spec] });
  await vm.waitFor(/liken-stick: installed as leader-1 on \/dev\/sd\w+/, 600_000);
  await vm.waitForExit(120_000);
  expect((await inspect(disk)).slots.a).toEqual({ version: "1.0.0", hashMatches: true });

  const boot = await startVm({ disks: [spec] });
  expect(await boot.waitFor(/^liken 1\.0\.0 slot a up$/, 300_000)).toBe("liken 1.0.0 slot a up");
  await boot.stop();
}, 1_500_000);
