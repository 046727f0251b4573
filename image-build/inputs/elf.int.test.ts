import { copyFile, mkdir, mkdtemp, realpath, rm, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { readNeeded } from "../../testing/readelf.ts";
import { findElfInfo, resolveInRoot, resolveLibraries } from "./elf.ts";

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "liken-elf-test-"));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe("findElfInfo on host binaries", () => {
  it.each(["/usr/sbin/sfdisk", "/usr/sbin/mke2fs", "/usr/bin/kmod", "/usr/bin/node"])(
    "reads the DT_NEEDED of %s exactly as readelf -d does",
    async (file) => {
      const elf = await findElfInfo(file);
      expect(elf?.needed).toEqual(await readNeeded(file));
      expect(elf?.machine).toBe(62);
      expect(elf?.interpreter).toBe("/lib64/ld-linux-x86-64.so.2");
    },
  );

  it("reads sfdisk's libraries by name", async () => {
    const elf = await findElfInfo("/usr/sbin/sfdisk");
    expect(elf?.needed).toContain("libfdisk.so.1");
    expect(elf?.needed).toContain("libc.so.6");
    expect(elf?.rpath).toEqual([]);
    expect(elf?.runpath).toEqual([]);
  });

  it("reads a library's soname and a static binary's lack of everything", async () => {
    const libc = await findElfInfo("/lib/x86_64-linux-gnu/libc.so.6");
    expect(libc?.soname).toBe("libc.so.6");
    expect(libc?.needed).toEqual(["ld-linux-x86-64.so.2"]);
    const busybox = await findElfInfo("/bin/busybox"); // busybox-static
    expect(busybox).toMatchObject({ interpreter: undefined, needed: [] });
  });

  it("answers undefined for a file that is not ELF", async () => {
    const script = join(dir, "script.sh");
    await writeFile(script, "#!/bin/sh\necho hello, this file is long enough to hold a header\n");
    expect(await findElfInfo(script)).toBeUndefined();
    await writeFile(join(dir, "tiny"), "x");
    expect(await findElfInfo(join(dir, "tiny"))).toBeUndefined();
  });
});

describe("resolveInRoot", () => {
  it("follows relative and absolute symlinks without leaving the root", async () => {
    const root = join(dir, "links");
    await mkdir(join(root, "lib/x86_64-linux-gnu"), { recursive: true });
    await mkdir(join(root, "lib64"), { recursive: true });
    await writeFile(join(root, "lib/x86_64-linux-gnu/ld-2.36.so"), "");
    await symlink("ld-2.36.so", join(root, "lib/x86_64-linux-gnu/ld-linux-x86-64.so.2"));
    await symlink("/lib/x86_64-linux-gnu/ld-linux-x86-64.so.2", join(root, "lib64/ld.so"));
    await symlink("../../../../../lib64", join(root, "lib/up"));
    expect(await resolveInRoot(root, "/lib64/ld.so")).toEqual({
      real: join(root, "lib/x86_64-linux-gnu/ld-2.36.so"),
      links: [join(root, "lib64/ld.so"), join(root, "lib/x86_64-linux-gnu/ld-linux-x86-64.so.2")],
    });
    expect((await resolveInRoot(root, "/lib/up/ld.so"))?.real).toBe(
      join(root, "lib/x86_64-linux-gnu/ld-2.36.so"),
    );
    expect(await resolveInRoot(root, "/lib64/missing")).toBeUndefined();
  });
});

describe("resolveLibraries", () => {
  it("finds sfdisk's closure on the host, with the loader and every soname link", async () => {
    const libs = await resolveLibraries(["/usr/sbin/sfdisk"], "/");
    // /lib may be a symlink to usr/lib (a merged-/usr host): compare with real paths
    const libdir = await realpath("/lib/x86_64-linux-gnu");
    expect(libs).toContain(await realpath("/lib64/ld-linux-x86-64.so.2"));
    expect(libs).toContain(`${libdir}/libfdisk.so.1`); // the soname link
    expect(libs).toContain(await realpath(`${libdir}/libfdisk.so.1`)); // and its target
    expect(libs).toContain(`${libdir}/libtinfo.so.6`); // through libreadline
  });

  it("names the binary and the library that no package provides", async () => {
    const root = join(dir, "partial");
    await mkdir(join(root, "sbin"), { recursive: true });
    await mkdir(join(root, "lib64"), { recursive: true });
    await copyFile("/usr/sbin/sfdisk", join(root, "sbin/sfdisk"));
    await copyFile("/lib64/ld-linux-x86-64.so.2", join(root, "lib64/ld-linux-x86-64.so.2"));
    await expect(resolveLibraries([join(root, "sbin/sfdisk")], root)).rejects.toThrow(
      "sfdisk needs libfdisk.so.1, and no package in image-build/packages.json ships it (add the Debian package that ships it to image-build/packages.json, then run npx tsx scripts/lock-packages.ts)",
    );
  });
});
