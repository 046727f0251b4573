// The real inputs, end to end: the pinned packages and Node.js from the cache (downloaded
// on a cold cache, about 120 MB), unpacked; the library closure of every tool the stick
// runs; the stick's module set and its boot-modules.json value.
import { copyFile, lstat, mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { run } from "../../tools/exec.ts";
import { requireDebianPackages, unpackDebs } from "./debian.ts";
import { resolveLibraries } from "./elf.ts";
import {
  type BootModules,
  bootModules,
  decompressModule,
  readModuleIndex,
  resolveModalias,
  stickModules,
} from "./modules.ts";
import { requireNodeBinary } from "./node.ts";

/** The tools the installer and the initramfs run, as the packages ship them. */
const TOOLS = [
  "sbin/sfdisk",
  "sbin/wipefs",
  "bin/lsblk",
  "sbin/blkid",
  "sbin/mkfs.vfat",
  "sbin/mkfs.ext4",
  "sbin/mke2fs",
  "sbin/debugfs",
  "usr/bin/mkfs.erofs",
  "usr/bin/mcopy",
  "usr/bin/mmd",
  "usr/bin/mtype",
  "bin/kmod",
  "sbin/modprobe",
  "sbin/blkdiscard",
  "usr/bin/partx",
  "usr/sbin/dmidecode",
  "bin/busybox",
  "bin/ip",
];

let root: string;
let node: string;
let debs: Map<string, string>;
const timings: Record<string, number> = {};

async function timed<T>(label: string, work: () => Promise<T>): Promise<T> {
  const start = performance.now();
  try {
    return await work();
  } finally {
    timings[label] = Math.round(performance.now() - start);
  }
}

async function totalSize(paths: readonly string[]): Promise<number> {
  let sum = 0;
  for (const p of paths) {
    const info = await lstat(p);
    if (info.isFile()) sum += info.size;
  }
  return sum;
}

const mib = (bytes: number) => `${(bytes / 2 ** 20).toFixed(1)} MiB`;

beforeAll(async () => {
  debs = await timed("requireDebianPackages", () => requireDebianPackages());
  node = await timed("requireNodeBinary", () => requireNodeBinary());
  root = await mkdtemp(join(tmpdir(), "liken-inputs-test-"));
  await timed("unpackDebs", () => unpackDebs([...debs.values()], root));
}, 15 * 60_000);

afterAll(async () => {
  console.log("inputs timings (ms):", JSON.stringify(timings));
  if (root) await rm(root, { recursive: true, force: true });
});

describe("the pinned inputs", () => {
  it("are every package of the lock file, and the Node.js it pins", async () => {
    expect(debs.has("busybox-static")).toBe(true);
    expect([...debs.keys()].some((n) => /^linux-image-6\.1\.0-\d+-amd64$/.test(n))).toBe(true);
    const { stdout } = await run(node, ["--version"]);
    expect(stdout.trim()).toBe("v20.20.2");
  });

  it("give every tool and node all of its libraries", async () => {
    const binaries = [...TOOLS.map((t) => join(root, t)), node];
    const libs = await timed("resolveLibraries", () => resolveLibraries(binaries, root));
    // bookworm's packages put libraries in both /lib and /usr/lib (unpacked, they stay apart)
    const found = (name: string) =>
      [join(root, "lib/x86_64-linux-gnu", name), join(root, "usr/lib/x86_64-linux-gnu", name)]
        .filter((p) => libs.includes(p))
        .join();
    for (const name of [
      "libc.so.6",
      "libfdisk.so.1",
      "libsmartcols.so.1",
      "libreadline.so.8",
      "libudev.so.1",
      "libe2p.so.2",
      "libss.so.2",
      "libselinux.so.1",
      "libpcre2-8.so.0",
      "libcrypto.so.3",
      "libzstd.so.1",
      "libgcc_s.so.1",
      // iproute2's ip
      "libbpf.so.1",
      "libelf.so.1",
      "libmnl.so.0",
      "libbsd.so.0",
      "libcap.so.2",
      "libz.so.1",
      "libmd.so.0",
    ])
      expect(found(name), name).not.toBe("");
    expect(libs).toContain(join(root, "lib64/ld-linux-x86-64.so.2"));
    expect(libs).toContain(join(root, "usr/lib/x86_64-linux-gnu/libstdc++.so.6"));
    const tools = await Promise.all(TOOLS.map(async (t) => (await lstat(join(root, t))).size));
    const size = (await totalSize(libs)) + tools.reduce((a, b) => a + b, 0);
    console.log(
      `tools and libraries: ${libs.length} library paths, ${mib(size)}; with node ${mib(size + (await lstat(node)).size)}`,
    );
  });

  describe("the stick's kernel modules", () => {
    let value: BootModules;
    beforeAll(async () => {
      value = await timed("bootModules", async () =>
        bootModules(root, stickModules(await readModuleIndex(root))),
      );
    });

    it("carry the named drivers with their dependencies", async () => {
      expect(value.kernel).toMatch(/^6\.1\.0-\d+-amd64$/);
      const carried = new Map(value.modules.map((m) => [m.name, m]));
      for (const name of [
        "nvme",
        "virtio_blk",
        "ahci",
        "sd_mod",
        "usb_storage",
        "megaraid_sas",
        "mptsas", // drivers/message/fusion/, which the stick once lacked
        "e1000e",
        "vfat",
        "ext4",
      ])
        expect(carried.has(name), name).toBe(true);
      // The stick keeps no crash records and arms no watchdog: a module it would load by
      // modalias for nothing costs the menu its load.
      for (const name of ["efi_pstore", "pstore_blk", "i6300esb"])
        expect(carried.has(name), name).toBe(false);
      expect(carried.get("nvme")?.depends).toContain("nvme_core");
      expect(carried.get("vfat")?.depends).toEqual(["fat"]);
      expect(carried.has("crc32c_generic")).toBe(true); // ext4's softdep
      const present = new Set([...carried.keys(), ...value.builtin]);
      for (const m of value.modules)
        for (const d of m.depends) expect(present.has(d), d).toBe(true);
      expect(value.aliases.every(([, m]) => present.has(m))).toBe(true);
      const size = await totalSize(
        value.modules.map((m) => join(root, "lib/modules", value.kernel, m.path)),
      );
      console.log(
        `modules: ${value.modules.length} carried, ${mib(size)} uncompressed; ${value.builtin.length} built-in; ${value.aliases.length} aliases; boot-modules.json ${mib(JSON.stringify(value).length)}`,
      );
    });

    it("resolve QEMU's virtio-blk PCI function to virtio_pci, and its disk to virtio_blk", () => {
      expect(
        resolveModalias("pci:v00001AF4d00001001sv00001AF4sd00000002bc01sc00i00", value.aliases),
      ).toContain("virtio_pci");
      expect(resolveModalias("virtio:d00000002v00001AF4", value.aliases)).toEqual(["virtio_blk"]);
      expect(
        resolveModalias("pci:v00008086d00002922sv00001AF4sd00001100bc01sc06i01", value.aliases),
      ).toContain("ahci");
    });

    it("decompress an .xz module back to the same bytes", async () => {
      const ko = join(root, "lib/modules", value.kernel, "kernel/drivers/block/virtio_blk.ko");
      const xzFile = join(root, "virtio_blk.ko.xz");
      await copyFile(ko, join(root, "virtio_blk.ko"));
      await run("xz", ["--compress", join(root, "virtio_blk.ko")]); // like later kernels ship them
      await decompressModule(xzFile, join(root, "out/virtio_blk.ko"));
      expect((await readFile(join(root, "out/virtio_blk.ko"))).equals(await readFile(ko))).toBe(
        true,
      );
    });
  });
});
