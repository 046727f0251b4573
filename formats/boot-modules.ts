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

/**
 * The boot-modules.json value in `text` (`kernel` when it names none), or what is wrong with
 * it. Every entry is checked: the installer, the report and the agent use each field as its
 * type says (a module that was null stopped them with a TypeError: boot-modules.fuzz.test.ts).
 */
export function parseBootModules(text: string, kernel: string): BootModules | string {
  let data: Partial<Record<keyof BootModules, unknown>> | null;
  try {
    data = JSON.parse(text);
  } catch (error) {
    return `is not JSON (${(error as Error).message.split("\n")[0]})`;
  }
  const { modules, builtin, aliases } = data ?? {};
  if (!Array.isArray(modules) || !Array.isArray(builtin) || !Array.isArray(aliases))
    return "lacks modules, builtin or aliases";
  if (!modules.every(isModuleEntry)) return "has a module that is not a name, path and depends";
  if (!builtin.every((b) => typeof b === "string")) return "has a built-in that is not a name";
  if (!aliases.every(isAlias)) return "has an alias that is not a pattern and a module";
  return {
    kernel: typeof data?.kernel === "string" ? data.kernel : kernel,
    modules,
    builtin,
    aliases,
  };
}

function isModuleEntry(value: unknown): value is ModuleEntry {
  const e = value as Partial<Record<keyof ModuleEntry, unknown>> | null;
  return (
    typeof e === "object" &&
    e !== null &&
    typeof e.name === "string" &&
    typeof e.path === "string" &&
    Array.isArray(e.depends) &&
    e.depends.every((d) => typeof d === "string") &&
    (e.where === undefined || e.where === "initramfs" || e.where === "root") &&
    (e.firmware === undefined || (Array.isArray(e.firmware) && e.firmware.every(isFirmwareFile)))
  );
}

function isFirmwareFile(value: unknown): value is FirmwareFile {
  const f = value as Partial<Record<keyof FirmwareFile, unknown>> | null;
  return (
    typeof f === "object" &&
    f !== null &&
    typeof f.file === "string" &&
    typeof f.carried === "boolean"
  );
}

function isAlias(value: unknown): value is Alias {
  return (
    Array.isArray(value) &&
    value.length === 2 &&
    typeof value[0] === "string" &&
    typeof value[1] === "string"
  );
}

/** The modules the initramfs can load: what a disk's driver chain may count on. */
export function initramfsModules(m: Pick<BootModules, "modules">): ModuleEntry[] {
  return m.modules.filter((e) => (e.where ?? "initramfs") === "initramfs");
}

/** The modules only the root carries (the NIC drivers and what they need beyond the initramfs). */
export function rootModules(m: Pick<BootModules, "modules">): ModuleEntry[] {
  return m.modules.filter((e) => e.where === "root");
}

// A pattern's parts: `*`, or one character that `matches`.
type Token = "*" | ((c: string) => boolean);

const patternCache = new Map<string, readonly Token[]>();

/** An fnmatch(3) pattern (`*`, `?`, `[...]`, `[!...]`; no FNM_PATHNAME) as its parts. */
function compilePattern(pattern: string): readonly Token[] {
  let tokens = patternCache.get(pattern);
  if (tokens) return tokens;
  const out: Token[] = [];
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i] as string;
    if (c === "\\" && i + 1 < pattern.length) out.push(literal(pattern[++i] as string));
    else if (c === "*") out.push("*");
    else if (c === "?") out.push(() => true);
    else if (c === "[") {
      let j = i + 1;
      if (pattern[j] === "!" || pattern[j] === "^") j++;
      if (pattern[j] === "]") j++; // a ] first in the set is a member
      while (j < pattern.length && pattern[j] !== "]") j++;
      if (j >= pattern.length) {
        out.push(literal("[")); // no closing bracket: a literal [
        continue;
      }
      out.push(charSet(pattern.slice(i + 1, j)));
      i = j;
    } else out.push(literal(c));
  }
  tokens = out;
  patternCache.set(pattern, tokens);
  return tokens;
}

function literal(c: string): Token {
  return (x) => x === c;
}

// The body of a [...] set: members and ranges (`0-9`); a range whose ends are out of order
// holds nothing, as in glibc (a RegExp threw a SyntaxError on it: boot-modules.fuzz.test.ts).
function charSet(body: string): Token {
  const negate = body.startsWith("!") || body.startsWith("^");
  const members = negate ? body.slice(1) : body;
  const ranges: [string, string][] = [];
  for (let k = 0; k < members.length; k++) {
    const from = members[k] as string;
    if (members[k + 1] === "-" && k + 2 < members.length) {
      ranges.push([from, members[k + 2] as string]);
      k += 2;
    } else ranges.push([from, from]);
  }
  return (x) => ranges.some(([lo, hi]) => lo <= x && x <= hi) !== negate;
}

/**
 * fnmatch(pattern, text, 0), as modprobe matches a modalias against modules.alias. A walk
 * that backs up to the last `*` only, so a match costs at most pattern times text steps: as
 * a RegExp, `*a*a*a*a*a*ab` against 100 characters took 14 s (boot-modules.fuzz.test.ts),
 * and the alias table is the release's, read from a stick or a disk.
 */
export function matchesPattern(pattern: string, text: string): boolean {
  const tokens = compilePattern(pattern);
  let p = 0;
  let t = 0;
  let star = -1;
  let starText = 0;
  while (t < text.length) {
    const token = tokens[p];
    if (token === "*") {
      star = p++;
      starText = t;
    } else if (token?.(text[t] as string)) {
      p++;
      t++;
    } else if (star >= 0) {
      p = star + 1;
      t = ++starText;
    } else return false;
  }
  while (tokens[p] === "*") p++;
  return p === tokens.length;
}

/** Every module whose alias matches `modalias` (modprobe loads them all), in table order. */
export function resolveModalias(modalias: string, aliases: readonly Alias[]): string[] {
  const out: string[] = [];
  for (const [pattern, module] of aliases)
    if (!out.includes(module) && matchesPattern(pattern, modalias)) out.push(module);
  return out;
}
