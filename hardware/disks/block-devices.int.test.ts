// The sysfs listing answers as lsblk does, on real devices: a loop device with a GPT whose
// first partition is mounted (at a path with a space) and whose second is active swap,
// a read-only loop device, and whatever the machine itself has.
import { existsSync, readFileSync } from "node:fs";
import { mkdir, mkdtemp, rm, truncate } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, expect, it } from "vitest";
import { run } from "../../tools/exec.ts";
import { type BlockDevice, listBlockDevices } from "../../tools/lsblk.ts";
import { readBlockDevices, readBlockDevicesAt } from "./block-devices.ts";

const root = process.getuid?.() === 0;
let dir: string;
let disk: string;
let readOnly: string;
let mountPoint: string;
const cleanup: (() => Promise<unknown>)[] = [];

beforeAll(async () => {
  if (!root) return;
  dir = await mkdtemp(join(tmpdir(), "liken-block-devices-"));
  const image = join(dir, "disk.img");
  await truncate(image, 0).catch(() => undefined);
  await run("truncate", ["-s", "300M", image]);
  await run("sfdisk", ["--quiet", image], {
    input: 'label: gpt\nsize=100M, name="data one"\nsize=50M\nsize=20M\n',
  });
  disk = (await run("losetup", ["--find", "--show", "--partscan", image])).stdout.trim();
  cleanup.push(() => run("losetup", ["--detach", disk]));
  // Without udev the partitions may need telling; devtmpfs makes their nodes.
  await run("partx", ["--add", disk]).catch(() => undefined);
  await waitFor(`${disk}p3`);
  await run("mkfs.ext4", ["-q", "-F", `${disk}p1`]);
  mountPoint = join(dir, "mount point");
  await mkdir(mountPoint);
  await run("mount", [`${disk}p1`, mountPoint]);
  cleanup.push(() => run("umount", [mountPoint]));
  await run("mkswap", ["-q", `${disk}p2`]);
  await run("swapon", [`${disk}p2`]);
  cleanup.push(() => run("swapoff", [`${disk}p2`]));
  const second = join(dir, "read-only.img");
  await run("truncate", ["-s", "64M", second]);
  readOnly = (await run("losetup", ["--find", "--show", "--read-only", second])).stdout.trim();
  cleanup.push(() => run("losetup", ["--detach", readOnly]));
}, 60_000);

afterAll(async () => {
  for (const undo of cleanup.reverse()) await undo().catch(() => undefined);
  if (dir) await rm(dir, { recursive: true, force: true });
});

async function waitFor(node: string): Promise<void> {
  for (let i = 0; i < 100; i++) {
    if ((await run("test", ["-b", node], { okExitCodes: [1] })).exitCode === 0) return;
    await new Promise((r) => setTimeout(r, 20));
  }
  throw new Error(`${node} did not appear`);
}

// lsblk's FSTYPE and PARTLABEL are nothing the disks use (and without udev both are empty).
function comparable(d: BlockDevice): unknown {
  const { fstype: _f, partlabel: _p, children, ...rest } = d;
  return { ...rest, children: children.map(comparable) };
}

// Where udev knows nothing of a disk, lsblk shows no WWN and no serial but device/serial,
// while the listing reads both from sysfs: those are held to sysfs below, not to lsblk.
function asLsblk(ours: readonly BlockDevice[], lsblk: readonly BlockDevice[]): BlockDevice[] {
  const theirs = new Map(lsblk.map((d) => [d.path, d]));
  return ours.map((d) => {
    const { serial, wwn, ...rest } = d;
    const them = theirs.get(d.path);
    return {
      ...rest,
      ...(serial && them?.serial ? { serial } : {}),
      ...(wwn && them?.wwn ? { wwn } : {}),
    };
  });
}

// What the kernel says of a disk's identity in a file that needs no parsing: a virtio
// disk's serial, an NVMe namespace's wwid, a SCSI disk's NAA wwid.
function sysfsSays(name: string): { serial?: string; wwn?: string } {
  const read = (file: string) => {
    try {
      return readFileSync(`/sys/block/${name}/${file}`, "utf8").trim() || undefined;
    } catch {
      return undefined;
    }
  };
  if (name.startsWith("vd")) return { serial: read("serial") };
  if (name.startsWith("nvme")) return { serial: read("device/serial"), wwn: read("wwid") };
  const naa = /^naa\.(.+)$/.exec(read("device/wwid") ?? "")?.[1];
  return naa ? { wwn: `0x${naa}` } : {};
}

it.skipIf(!root)(
  "lists every block device as lsblk does, with mounts, swap and partitions",
  async () => {
    const lsblk = await listBlockDevices();
    expect(asLsblk(readBlockDevices(), lsblk).map(comparable)).toEqual(lsblk.map(comparable));

    const ours = readBlockDevices().find((d) => d.path === disk);
    expect(ours?.children.map((c) => [c.type, c.mountpoints])).toEqual([
      ["part", [mountPoint]],
      ["part", ["[SWAP]"]],
      ["part", []],
    ]);
    expect(readBlockDevices().find((d) => d.path === readOnly)?.readOnly).toBe(true);
  },
);

it.skipIf(!root)("lists the devices named, partitions too, as lsblk does", async () => {
  const paths = [disk, `${disk}p1`, readOnly];
  const lsblk = await Promise.all(
    paths.map(async (p) => (await listBlockDevices([p])).map(comparable)[0]),
  );
  expect(readBlockDevicesAt(paths).map((d) => d && comparable(d))).toEqual(lsblk);
  expect(readBlockDevicesAt([join(dir, "disk.img"), "/nonexistent"])).toEqual([
    undefined,
    undefined,
  ]);
});

it.skipIf(!root)(
  "gives each disk the serial and WWN its sysfs files say where udev has none",
  () => {
    const disks = readBlockDevices((n) => /^(loop|sr|zram)\d+$/.test(n)).filter(
      (d) => d.type === "disk" && !existsSync(`/run/udev/data/b${devno(d.name)}`),
    );
    for (const d of disks) {
      const says = sysfsSays(d.name);
      if (says.serial) expect(d.serial, d.path).toBe(says.serial.replace(/\s+/g, " "));
      if (says.wwn) expect(d.wwn?.toLowerCase(), d.path).toBe(says.wwn.toLowerCase());
    }
  },
);

function devno(name: string): string {
  return readFileSync(`/sys/class/block/${name}/dev`, "utf8").trim();
}
