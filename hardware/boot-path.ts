// The boot-path verdict: which modules a disk's (or NIC's) driver chain needs, and which of
// them the release's initramfs cannot load. Pure: sysfs facts and boot-modules.json in,
// annotated chains out.
import { type BootModules, initramfsModules, resolveModalias } from "../formats/boot-modules.ts";
import type { SysLevel } from "./sysfs.ts";
import type { BootSupport, ChainLevel } from "./types.ts";

/** boot-modules.json as sets, looked up once per report. */
export interface BootPath {
  readonly version: string;
  readonly kernel: string;
  readonly carried: ReadonlySet<string>;
  readonly builtin: ReadonlySet<string>;
  readonly aliases: BootModules["aliases"];
}

/**
 * A disk must be driven by the initramfs, which finds the slot; a NIC by the modules the
 * root carries too, which the boot agent loads before it waits for the ports.
 */
export function bootPathOf(
  version: string,
  modules: BootModules,
  device: "disk" | "nic" = "disk",
): BootPath {
  const carried = device === "disk" ? initramfsModules(modules) : modules.modules;
  return {
    version,
    kernel: modules.kernel,
    carried: new Set(carried.map((m) => m.name)),
    builtin: new Set(modules.builtin),
    aliases: modules.aliases,
  };
}

function supportOf(name: string, boot: BootPath): BootSupport | undefined {
  if (boot.builtin.has(name)) return "builtin";
  if (boot.carried.has(name)) return "carried";
  return undefined;
}

/** The module the release would load for a modalias, and how it has it. */
function resolveInRelease(
  modalias: string | null,
  boot: BootPath,
): { module: string; boot: BootSupport } | undefined {
  if (modalias === null) return undefined;
  for (const module of resolveModalias(modalias, boot.aliases)) {
    const support = supportOf(module, boot);
    if (support) return { module, boot: support };
  }
  return undefined;
}

/** One chain level judged against the release (`boot` null without one). */
export function judgeLevel(level: SysLevel, boot: BootPath | undefined): ChainLevel {
  if (!boot) return { ...level, boot: null };
  if (level.driver === null) {
    // Nothing bound: the module its modalias would load at boot, if the release has one.
    const resolved = resolveInRelease(level.modalias, boot);
    return resolved
      ? { ...level, module: resolved.module, boot: resolved.boot }
      : { ...level, boot: "unknown" };
  }
  const module = level.module as string;
  const support = supportOf(module, boot);
  if (support) return { ...level, boot: support };
  if (!level.builtin) return { ...level, boot: "missing" };
  // Built in here under a name the release does not list: the release may still have a
  // driver for the device; if not, it is a bus or port driver that is never a module.
  const resolved = resolveInRelease(level.modalias, boot);
  return { ...level, boot: resolved ? resolved.boot : "unknown" };
}

export function judgeChain(
  chain: readonly SysLevel[],
  boot: BootPath | undefined,
): readonly ChainLevel[] {
  return chain.map((level) => judgeLevel(level, boot));
}

/** The modules a chain needs, in chain order, each once. */
export function modulesOf(chain: readonly ChainLevel[]): string[] {
  return unique(chain.flatMap((l) => (l.module === null ? [] : [l.module])));
}

/** The modules of a judged chain that the release cannot load at boot. */
export function missingOf(chain: readonly ChainLevel[]): string[] {
  return unique(chain.flatMap((l) => (l.boot === "missing" && l.module ? [l.module] : [])));
}

function unique(names: string[]): string[] {
  return [...new Set(names)];
}

/** The bus a disk hangs on, read from its chain's drivers. */
export function busOf(chain: readonly SysLevel[]): string | null {
  const drivers = new Set(chain.map((l) => l.driver));
  const subsystems = new Set(chain.map((l) => l.subsystem));
  if (subsystems.has("usb")) return "usb";
  if (drivers.has("nvme")) return "nvme";
  if (drivers.has("virtio_blk")) return "virtio";
  if (drivers.has("ahci") || [...drivers].some((d) => d?.startsWith("ata_"))) return "sata";
  if (drivers.has("mmcblk")) return "mmc";
  if (subsystems.has("scsi")) return "scsi";
  return null;
}
