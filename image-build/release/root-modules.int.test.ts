// A real release's root, read back from its rootfs.img: the NIC drivers with their indexes
// and firmware, loadable by the root's own busybox modprobe by name and by modalias, and
// listed in boot-modules.json as the root's; none of them in the initramfs.
import { lstat, mkdtemp, readFile, readlink, rm, stat, symlink } from "node:fs/promises";
import { release as kernelRelease, tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  type BootModules,
  initramfsModules,
  resolveModalias,
  rootModules,
} from "../../formats/boot-modules.ts";
import { cachedRelease } from "../../testing/cached-build.ts";
import { run } from "../../tools/exec.ts";
import { extractErofs } from "../../tools/fsck-erofs.ts";
import { NOT_BUILT_ON } from "../inputs/modules.ts";
import { requireUnpackedInputs } from "../unpacked.ts";
import { RELEASE_MODULES } from "./build-release.ts";
import { ROOT_NETWORK_MODULES } from "./root-modules.ts";

let dir: string;
let root: string;
let modules: BootModules;
let kernel: string;

beforeAll(async () => {
  const release = await cachedRelease({ version: "1.0.0" });
  modules = JSON.parse(await readFile(join(release, "boot-modules.json"), "utf8"));
  kernel = modules.kernel;
  dir = await mkdtemp(join(tmpdir(), "liken-root-modules-"));
  root = join(dir, "root");
  await extractErofs(join(release, "rootfs.img"), root);
}, 300_000);

afterAll(async () => {
  if (dir) await rm(dir, { recursive: true, force: true });
});

const byName = (name: string) => modules.modules.find((m) => m.name === name);

describe("a release's boot-modules.json", () => {
  it("lists every NIC driver as the root's, and none in the initramfs", () => {
    for (const name of ROOT_NETWORK_MODULES) expect(byName(name)?.where, name).toBe("root");
    const initramfs = new Set(initramfsModules(modules).map((m) => m.name));
    // This release is amd64's: the names its kernel does not build (sbsa_gwdt) are arm64's.
    for (const name of RELEASE_MODULES.filter((n) => !NOT_BUILT_ON.amd64.includes(n)))
      expect(initramfs.has(name), name).toBe(true);
    for (const name of ROOT_NETWORK_MODULES) expect(initramfs.has(name), name).toBe(false);
    // a dependency both need is listed once, as the initramfs's
    expect(byName("virtio_ring")).not.toHaveProperty("where");
    expect(modules.modules.filter((m) => m.name === "virtio_ring")).toHaveLength(1);
  });

  it("resolves NICs' modaliases to the root's drivers", () => {
    const nic = (modalias: string) => resolveModalias(modalias, modules.aliases);
    expect(nic("pci:v00008086d000010D3sv00008086sd0000A01Fbc02sc00i00")).toEqual(["e1000e"]);
    expect(nic("virtio:d00000001v00001AF4")).toEqual(["virtio_net"]);
    expect(nic("pci:v000014E4d00001657sv0000103Csd000022BEbc02sc00i00")).toEqual(["tg3"]);
  });

  it("names the firmware each driver asks for, every file carried", () => {
    expect(byName("tg3")?.firmware?.map((f) => f.file)).toContain("tigon/tg3_tso5.bin");
    expect(byName("ice")?.firmware).toEqual([{ file: "intel/ice/ddp/ice.pkg", carried: true }]);
    expect(byName("r8169")?.firmware?.length).toBeGreaterThan(10);
    expect(byName("e1000e")).not.toHaveProperty("firmware");
    const firmware = rootModules(modules).flatMap((m) => m.firmware ?? []);
    expect(firmware.filter((f) => !f.carried)).toEqual([]);
  });
});

describe("a release's root filesystem", () => {
  const moduleDir = () => join(root, "lib/modules", kernel);

  it("holds every root module decompressed, with depmod's indexes", async () => {
    for (const m of rootModules(modules)) {
      const head = (await readFile(join(moduleDir(), m.path))).subarray(0, 4);
      expect(head.toString("latin1"), m.path).toBe("\x7fELF");
    }
    const alias = await readFile(join(moduleDir(), "modules.alias"), "utf8");
    expect(alias).toMatch(/^alias pci:v00008086d000010D3sv\*sd\*bc\*sc\*i\* e1000e$/m);
    const dep = await readFile(join(moduleDir(), "modules.dep"), "utf8");
    expect(dep).toMatch(/^kernel\/drivers\/net\/ethernet\/intel\/e1000e\/e1000e\.ko:/m);
    // the root's modprobe needs the dependencies the initramfs loaded too
    expect(dep).toMatch(/^kernel\/drivers\/net\/virtio_net\.ko: .*virtio_ring\.ko/m);
  });

  it("holds the firmware files as the packages ship them", async () => {
    const inputs = await requireUnpackedInputs();
    const carried = join(root, "lib/firmware/tigon/tg3_tso5.bin");
    expect(await readFile(carried)).toEqual(
      await readFile(join(inputs.root, "lib/firmware/tigon/tg3_tso5.bin")),
    );
    const ice = join(root, "lib/firmware/intel/ice/ddp/ice.pkg");
    expect((await lstat(ice)).isSymbolicLink()).toBe(true);
    expect((await lstat(join(root, "lib/firmware/intel/ice/ddp", await readlink(ice)))).size).toBe(
      (await stat(join(inputs.root, "lib/firmware/intel/ice/ddp/ice.pkg"))).size,
    );
  });

  it.skipIf(process.getuid?.() !== 0)(
    "lets its busybox modprobe, and the kernel's /bin/modprobe, resolve drivers by name and by modalias",
    async () => {
      // busybox modprobe reads /lib/modules/$(uname -r): the host's kernel is another one
      if (kernelRelease() !== kernel)
        await symlink(kernel, join(root, "lib/modules", kernelRelease()));
      const dry = async (name: string) =>
        (await run("chroot", [root, "/bin/busybox", "modprobe", "-D", name])).stdout;
      expect(await dry("e1000e")).toMatch(/insmod \S+\/e1000e\/e1000e\.ko/);
      expect(await dry("pci:v00008086d000010D3sv00008086sd0000A01Fbc02sc00i00")).toMatch(
        /insmod \S+\/e1000e\.ko/,
      );
      expect(await dry("tg3")).toMatch(/libphy\.ko\ninsmod \S+\/tg3\.ko/);
      // what the kernel runs when libphy asks for r8169's PHY driver by its modalias
      const kernelAsks = await run("chroot", [
        root,
        "/bin/modprobe",
        "-D",
        "mdio:00000000000111001100100000000000",
      ]);
      expect(kernelAsks.stdout).toMatch(/insmod \S+\/realtek\.ko/);
    },
  );
});
