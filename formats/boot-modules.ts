// boot-modules.json, the table every release carries (docs/design.md section 4): the
// modules its initramfs can load, the NIC drivers its root carries, its kernel's built-ins,
// and the alias table that turns a device's modalias into the driver modprobe would load.
// The release build writes it (image-build/inputs/modules.ts); the installer, the hardware
// report and the boot agent read it.

export interface ModuleEntry {
  /** The kernel's name: `usb_storage` (`-` in file names reads as `_`). */
  readonly name: string;
  /** Relative to lib/modules/<kernel>/, as modules.dep writes it. */
  readonly path: string;
  /** Every module it needs (modules.dep lists them transitively), by name. */
  readonly depends: readonly string[];
  /**
   * Where the release carries it: `initramfs` (loadable before the root is mounted: disks
   * count only these) or `root` (loadable once the boot agent runs: the NIC drivers, kept
   * out of the initramfs so that they load after the operator's declared modules). Absent
   * means `initramfs`, so files written before the root carried modules read the same. A
   * module both carry (a NIC driver's dependency the initramfs also needs) is listed once,
   * as `initramfs`.
   */
  readonly where?: ModuleWhere;
  /**
   * The firmware files `modinfo -F firmware` names for it, and whether the release carries
   * each (under the root's /lib/firmware). Absent when it names none.
   */
  readonly firmware?: readonly FirmwareFile[];
}

export type ModuleWhere = "initramfs" | "root";

export interface FirmwareFile {
  /** Relative to /lib/firmware: `tigon/tg3_tso5.bin`. */
  readonly file: string;
  readonly carried: boolean;
}

export type Alias = readonly [pattern: string, module: string];

/** The boot-modules.json value (docs/design.md section 4). */
export interface BootModules {
  readonly kernel: string;
  readonly modules: readonly ModuleEntry[];
  readonly builtin: readonly string[];
  /** The aliases of every listed module (initramfs and root) and of the built-ins. */
  readonly aliases: readonly Alias[];
}

/** The modules the initramfs can load: what a disk's driver chain may count on. */
export function initramfsModules(m: Pick<BootModules, "modules">): ModuleEntry[] {
  return m.modules.filter((e) => (e.where ?? "initramfs") === "initramfs");
}

/** The modules only the root carries (the NIC drivers and what they need beyond the initramfs). */
export function rootModules(m: Pick<BootModules, "modules">): ModuleEntry[] {
  return m.modules.filter((e) => e.where === "root");
}

const patternCache = new Map<string, RegExp>();

function escapeRegExp(c: string): string {
  return c.replace(/[.*+?^${}()|[\]\\/]/g, "\\$&");
}

/** An fnmatch(3) pattern (`*`, `?`, `[...]`, `[!...]`; no FNM_PATHNAME) as a RegExp. */
function compilePattern(pattern: string): RegExp {
  let re = patternCache.get(pattern);
  if (re) return re;
  let source = "";
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i]!;
    if (c === "\\" && i + 1 < pattern.length) source += escapeRegExp(pattern[++i]!);
    else if (c === "*") source += "[\\s\\S]*";
    else if (c === "?") source += "[\\s\\S]";
    else if (c === "[") {
      let j = i + 1;
      if (pattern[j] === "!" || pattern[j] === "^") j++;
      if (pattern[j] === "]") j++; // a ] first in the set is a member
      while (j < pattern.length && pattern[j] !== "]") j++;
      if (j >= pattern.length) {
        source += "\\["; // no closing bracket: a literal [
        continue;
      }
      let body = pattern.slice(i + 1, j);
      const negate = body.startsWith("!") || body.startsWith("^");
      if (negate) body = body.slice(1);
      source += `[${negate ? "^" : ""}${body.replace(/[\\\]^[]/g, "\\$&")}]`;
      i = j;
    } else source += escapeRegExp(c);
  }
  re = new RegExp(`^${source}$`);
  patternCache.set(pattern, re);
  return re;
}

/** fnmatch(pattern, text, 0), as modprobe matches a modalias against modules.alias. */
export function matchesPattern(pattern: string, text: string): boolean {
  return compilePattern(pattern).test(text);
}

/** Every module whose alias matches `modalias` (modprobe loads them all), in table order. */
export function resolveModalias(modalias: string, aliases: readonly Alias[]): string[] {
  const out: string[] = [];
  for (const [pattern, module] of aliases)
    if (!out.includes(module) && matchesPattern(pattern, modalias)) out.push(module);
  return out;
}
