// The sysfs listing answers as lsblk does, on real devices: a loop device with a GPT whose
// first partition is mounted (at a path with a space) and whose second is active swap,
// a read-only loop device, and whatever the machine itself has.
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

it.skipIf(!root)(
  "lists every block device as lsblk does, with mounts, swap and partitions",
  async () => {
    const lsblk = (await listBlockDevices()).map(comparable);
    expect(readBlockDevices().map(comparable)).toEqual(lsblk);

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
