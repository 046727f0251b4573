// The kernel modules an initramfs carries: parsed from the unpacked kernel package's
// indexes (modules.dep, modules.alias, modules.softdep, modules.builtin, modules.order),
// closed over their dependencies, and written out as the boot-modules.json value of
// docs/design.md section 4, with the alias table that turns a device's modalias into a driver.
import { copyFile, mkdir, readdir, readFile, stat } from "node:fs/promises";
import { basename, dirname, join } from "node:path";
import { type Arch, isArch } from "../../common/arch.ts";
import { LikenError } from "../../common/errors.ts";
import {
  type Alias,
  type BootModules,
  type FirmwareFile,
  type ModuleEntry,
  resolveModalias,
} from "../../formats/boot-modules.ts";
import { writeModuleIndexes } from "../../tools/depmod.ts";
import { decompressInPlace } from "../../tools/xz.ts";

export { matchesPattern, resolveModalias } from "../../formats/boot-modules.ts";
export type { Alias, BootModules, FirmwareFile, ModuleEntry };

export interface ModuleIndex {
  readonly kernel: string;
  /** The arch Debian built the kernel for (its name's suffix); undefined for another kernel. */
  readonly arch?: Arch;
  readonly modules: ReadonlyMap<string, ModuleEntry>;
  readonly builtin: ReadonlySet<string>;
  /** modules.alias, then the built-ins' aliases from modules.builtin.modinfo. */
  readonly aliases: readonly Alias[];
  /** `softdep ext4 pre: crypto-crc32c`: names or aliases to load beside a module. */
  readonly softdeps: ReadonlyMap<string, readonly string[]>;
  /** Module name -> its place in modules.order (the kernel's link order). */
  readonly order: ReadonlyMap<string, number>;
}

/**
 * Names the module lists of the stick and the release share across arches, which Debian's
 * kernel for an arch does not build because that hardware is not found there: a closure
 * skips them on that arch, and still refuses any other name the kernel lacks (a typo).
 * Checked against 6.1.0-57's trees (image-build/inputs/inputs-arm64.int.test.ts).
 */
export const NOT_BUILT_ON: Readonly<Record<Arch, readonly string[]>> = {
  amd64: [
    "sbsa_gwdt", // the SBSA generic watchdog of Arm servers
  ],
  arm64: [
    "lpc_ich", // Intel's chipset LPC bridge, through which iTCO_wdt finds its registers
    "iTCO_wdt", // Intel's chipset TCO watchdog
    "sp5100_tco", // AMD's chipset watchdog
    "vmw_pvscsi", // VMware's paravirtual SCSI: x86 only in 6.1
    "uhci_hcd", // USB 1.1 of Intel and VIA chipsets
  ],
};

/** The arch of a Debian kernel release (`6.1.0-57-arm64`), or undefined for another kernel. */
export function kernelArch(kernel: string): Arch | undefined {
  const suffix = /-([a-z0-9]+)$/.exec(kernel)?.[1];
  return isArch(suffix) ? suffix : undefined;
}

/**
 * Folders (relative to lib/modules/<kernel>/) whose every module the stick carries: every
 * storage, USB host and storage, and wired NIC driver Debian builds for the arch.
 */
export const STICK_DRIVER_PREFIXES: readonly string[] = [
  "kernel/drivers/ata/",
  "kernel/drivers/scsi/",
  "kernel/drivers/message/fusion/", // LSI's older Fusion-MPT HBAs (mptsas, mptspi)
  "kernel/drivers/nvme/",
  "kernel/drivers/block/",
  "kernel/drivers/virtio/",
  "kernel/drivers/usb/host/",
  "kernel/drivers/usb/storage/",
  "kernel/drivers/net/ethernet/",
  "kernel/drivers/net/usb/", // USB Ethernet adapters (NUCs and laptops without a port)
];

/** Modules the stick carries by name, besides the folders above. */
export const STICK_NAMED_MODULES: readonly string[] = [
  // disks and NICs of QEMU and of common servers (most also lie in the folders above)
  "virtio_blk",
  "virtio_pci",
  "virtio_net",
  "virtio_scsi",
  "nvme",
  "ahci",
  "sd_mod",
  "usb_storage",
  "uas",
  "xhci_pci",
  "ehci_pci",
  "megaraid_sas",
  "mpt3sas",
  "e1000e",
  "igb",
  "ixgbe",
  "i40e",
  "mlx5_core",
  // filesystems: the ESP (FAT needs its codepages), the state partition, release images
  "vfat",
  "nls_cp437",
  "nls_iso8859_1",
  "nls_ascii",
  "ext4",
  "erofs",
  // EFI variables (Secure Boot's state, the boot entries). The stick keeps no crash
  // records and arms no watchdog: efi_pstore and the watchdog drivers, which the release
  // carries, would each cost the menu a module's load under emulation for nothing.
  "efivarfs",
  // ext4 asks the crypto API for it at mount (the shell's mount of a state partition)
  "crc32c_generic",
  // a USB keyboard for the menu
  "usbhid",
  "hid_generic",
  // the declared network's bonds and VLANs, for the unattended report (hardware/network/)
  "bonding",
  "8021q",
  // [encryption] tpm = true: the installer formats LUKS2 (aes-xts-plain64) through dm-crypt
  "dm_crypt",
  "xts",
];

/** The NIC drivers the netboot initramfs carries: every wired one, and virtio's. */
export function netbootModules(index: ModuleIndex): string[] {
  return [
    ...allDriversUnder(index, ["kernel/drivers/net/ethernet/", "kernel/drivers/net/usb/"]),
    "virtio_net",
  ];
}

/** The names the stick carries: every module under STICK_DRIVER_PREFIXES and STICK_NAMED_MODULES. */
export function stickModules(index: ModuleIndex): string[] {
  return [...new Set([...allDriversUnder(index, STICK_DRIVER_PREFIXES), ...STICK_NAMED_MODULES])];
}

const COMPRESSION = /\.(xz|zst|gz)$/;

/** `kernel/drivers/usb/storage/usb-storage.ko.xz` -> `usb_storage`, as the kernel names it. */
export function moduleName(pathOrName: string): string {
  return basename(pathOrName).replace(COMPRESSION, "").replace(/\.ko$/, "").replaceAll("-", "_");
}

/** The path a module has once decompressed: `.ko.xz` -> `.ko`. */
export function decompressedPath(path: string): string {
  return path.replace(COMPRESSION, "");
}

function lines(text: string): string[] {
  return text
    .split("\n")
    .map((l) => l.trim())
    .filter((l) => l !== "" && !l.startsWith("#"));
}

/** modules.dep: `path: dependency-path ...`, one module a line. */
export function parseModulesDep(text: string): ModuleEntry[] {
  return lines(text).map((line) => {
    const colon = line.indexOf(":");
    const path = line.slice(0, colon);
    const depends = line
      .slice(colon + 1)
      .split(/\s+/)
      .filter(Boolean)
      .map(moduleName);
    return { name: moduleName(path), path, depends };
  });
}

/** modules.alias: `alias pattern module`. */
export function parseModulesAlias(text: string): Alias[] {
  const out: Alias[] = [];
  for (const line of lines(text)) {
    const [word, pattern, module] = line.split(/\s+/);
    if (word === "alias" && pattern && module) out.push([pattern, moduleName(module)]);
  }
  return out;
}

/** modules.builtin and modules.order: one module path a line; returns names. */
export function parseModuleList(text: string): string[] {
  return lines(text).map(moduleName);
}

/** modules.softdep: `softdep module pre: a b post: c` (words before `pre:`/`post:` are ignored, as kmod does). */
export function parseModulesSoftdep(text: string): Map<string, string[]> {
  const out = new Map<string, string[]>();
  for (const line of lines(text)) {
    const [word, module, ...rest] = line.split(/\s+/);
    if (word !== "softdep" || !module) continue;
    let mode: "none" | "pre" | "post" = "none";
    const deps = out.get(moduleName(module)) ?? [];
    for (const token of rest) {
      if (token === "pre:") mode = "pre";
      else if (token === "post:") mode = "post";
      else if (mode !== "none") deps.push(token);
    }
    out.set(moduleName(module), deps);
  }
  return out;
}

/** modules.builtin.modinfo: NUL-separated `module.key=value`; returns the `alias` entries. */
export function parseBuiltinModinfo(data: string): Alias[] {
  const out: Alias[] = [];
  for (const record of data.split("\0")) {
    const m = /^([^.=]+)\.alias=(.+)$/.exec(record);
    if (m) out.push([m[2]!, moduleName(m[1]!)]);
  }
  return out;
}

/**
 * Reads the module indexes of the single kernel under `<kernelTree>/lib/modules/`, running
 * depmod first when the package came without them (Debian's does).
 */
export async function readModuleIndex(kernelTree: string): Promise<ModuleIndex> {
  const base = join(kernelTree, "lib", "modules");
  // No modules folder is refused below, with what to do.
  const kernels = await readdir(base).catch(() => []);
  if (kernels.length !== 1)
    throw new LikenError({
      kind: "failed",
      what: `${base} holds ${kernels.length === 0 ? "no kernel" : `several kernels (${kernels.join(", ")})`}`,
      hint: "unpack exactly one linux-image package into the tree",
    });
  const kernel = kernels[0]!;
  const dir = join(base, kernel);
  // No modules.dep: depmod writes the indexes.
  if (!(await stat(join(dir, "modules.dep")).catch(() => undefined)))
    await writeModuleIndexes(kernelTree, kernel);
  // An index the kernel package lacks is read as empty: it lists nothing.
  const read = (name: string) => readFile(join(dir, name), "utf8").catch(() => "");
  const [dep, alias, softdep, builtin, builtinModinfo, order] = await Promise.all(
    [
      "modules.dep",
      "modules.alias",
      "modules.softdep",
      "modules.builtin",
      "modules.builtin.modinfo",
      "modules.order",
    ].map(read),
  );
  const arch = kernelArch(kernel);
  return {
    kernel,
    ...(arch ? { arch } : {}),
    modules: new Map(parseModulesDep(dep!).map((m) => [m.name, m])),
    builtin: new Set(parseModuleList(builtin!)),
    aliases: [...parseModulesAlias(alias!), ...parseBuiltinModinfo(builtinModinfo!)],
    softdeps: parseModulesSoftdep(softdep!),
    order: new Map(parseModuleList(order!).map((name, i) => [name, i])),
  };
}

/**
 * The modules to carry so that each of `names` (module names or aliases) loads: each with
 * its dependencies and soft dependencies, transitively; built-ins resolve to nothing.
 * Sorted in modules.order (load) order. Throws naming a module the kernel does not have,
 * but for the names NOT_BUILT_ON the index's arch, which it skips when they are absent.
 */
export function moduleClosure(index: ModuleIndex, names: readonly string[]): string[] {
  const carried = new Set<string>();
  const notBuilt = new Set((index.arch ? NOT_BUILT_ON[index.arch] : []).map(moduleName));
  const visit = (wanted: string, required: boolean): void => {
    const name = moduleName(wanted);
    if (index.builtin.has(name) || carried.has(name)) return;
    const entry = index.modules.get(name);
    if (!entry) {
      // not a module's name: an alias (softdeps name `crypto-crc32c`), which loads every match
      const matches = resolveModalias(wanted, index.aliases);
      if (matches.length === 0 && required && !notBuilt.has(name))
        throw new LikenError({
          kind: "failed",
          what: `kernel ${index.kernel} has no module or alias ${wanted}`,
          hint: "check the name against lib/modules/<kernel>/modules.dep, or pick another kernel",
        });
      for (const m of matches) visit(m, false);
      return;
    }
    carried.add(name);
    for (const dep of entry.depends) visit(dep, true);
    for (const soft of index.softdeps.get(name) ?? []) visit(soft, false);
  };
  for (const n of names) visit(n, true);
  return sortByOrder(index, [...carried]);
}

function sortByOrder(index: ModuleIndex, names: string[]): string[] {
  const rank = (n: string) => index.order.get(n) ?? Number.MAX_SAFE_INTEGER;
  return names.sort((a, b) => rank(a) - rank(b) || (a < b ? -1 : a > b ? 1 : 0));
}

/** Every module whose path (relative to lib/modules/<kernel>/) starts with one of `prefixes`. */
export function allDriversUnder(index: ModuleIndex, prefixes: readonly string[]): string[] {
  const names = [...index.modules.values()]
    .filter((m) => prefixes.some((p) => m.path.startsWith(p)))
    .map((m) => m.name);
  return sortByOrder(index, names);
}

/**
 * The boot-modules.json value for an initramfs carrying `names` and their closure: the
 * carried modules, every built-in, and the aliases of both (so a modalias resolves to a
 * driver the initramfs has). With `decompressed`, paths lose their `.xz` as decompressModule
 * writes them.
 */
export async function bootModules(
  kernelTree: string,
  names: readonly string[],
  options: { decompressed?: boolean } = {},
): Promise<BootModules> {
  const index = await readModuleIndex(kernelTree);
  const carried = moduleClosure(index, names);
  const present = new Set([...carried, ...index.builtin]);
  return {
    kernel: index.kernel,
    modules: carried.map((name) => {
      const m = index.modules.get(name)!;
      return { ...m, path: options.decompressed ? decompressedPath(m.path) : m.path };
    }),
    builtin: [...index.builtin].sort(),
    aliases: index.aliases.filter(([, module]) => present.has(module)),
  };
}

/**
 * The release's boot-modules.json: the initramfs's modules, then the root's that the
 * initramfs lacks (`where: "root"`), each with the firmware it names (by module name), and
 * the aliases of both and of the built-ins, in the kernel's modules.alias order.
 */
export function releaseBootModules(
  index: ModuleIndex,
  initramfs: BootModules,
  root: BootModules,
  firmware: ReadonlyMap<string, readonly FirmwareFile[]>,
): BootModules {
  const inInitramfs = new Set(initramfs.modules.map((m) => m.name));
  const withFirmware = (m: ModuleEntry): ModuleEntry => {
    const files = firmware.get(m.name) ?? [];
    return files.length > 0 ? { ...m, firmware: files } : m;
  };
  const modules = [
    ...initramfs.modules.map(withFirmware),
    ...root.modules
      .filter((m) => !inInitramfs.has(m.name))
      .map((m) => withFirmware({ ...m, where: "root" })),
  ];
  const present = new Set([...modules.map((m) => m.name), ...index.builtin]);
  return {
    kernel: index.kernel,
    modules,
    builtin: [...index.builtin].sort(),
    aliases: index.aliases.filter(([, module]) => present.has(module)),
  };
}

/**
 * Writes the module `src` to `dest` uncompressed: `.ko.xz` through xz, a plain `.ko` copied.
 * (Debian 6.1's modules are plain `.ko`; later kernels ship `.ko.xz`.)
 */
export async function decompressModule(src: string, dest: string): Promise<void> {
  await decompressModules([[src, dest]]);
}

/** decompressModule for many at once: one xz run per few hundred files. */
export async function decompressModules(
  pairs: readonly (readonly [src: string, dest: string])[],
): Promise<void> {
  const compressed: string[] = [];
  for (const [src, dest] of pairs) {
    await mkdir(dirname(dest), { recursive: true });
    if (src.endsWith(".xz")) {
      await copyFile(src, `${dest}.xz`);
      compressed.push(`${dest}.xz`);
    } else if (COMPRESSION.test(src))
      throw new LikenError({
        kind: "failed",
        what: `${src} is compressed in a way the build cannot read`,
        hint: "only .ko and .ko.xz modules are supported",
      });
    else await copyFile(src, dest);
  }
  await decompressInPlace(compressed);
}
