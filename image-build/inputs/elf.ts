// Reads what the dynamic loader reads from an ELF64 file (its interpreter, DT_NEEDED,
// DT_RPATH and DT_RUNPATH) and finds the closure of shared libraries a set of binaries
// needs inside an unpacked tree of Debian packages. ldd cannot do this: it asks the host's
// loader, which answers with the host's libraries.
import { lstat, readlink } from "node:fs/promises";
import { basename, dirname, join, posix, relative, sep } from "node:path";
import { type Arch, archFacts } from "../../common/arch.ts";
import { LikenError } from "../../common/errors.ts";
import { withElfFile } from "./elf-file.ts";

export interface ElfInfo {
  /** e_machine: 62 is x86-64, 183 AArch64. */
  readonly machine: number;
  /** e_type: 2 an executable, 3 a shared object or PIE. */
  readonly type: number;
  /** PT_INTERP: `/lib64/ld-linux-x86-64.so.2`; undefined for static binaries and libraries. */
  readonly interpreter: string | undefined;
  readonly needed: readonly string[];
  readonly soname: string | undefined;
  readonly rpath: readonly string[];
  readonly runpath: readonly string[];
}

const PT_LOAD = 1;
const PT_DYNAMIC = 2;
const PT_INTERP = 3;
const DT_NULL = 0n;
const DT_NEEDED = 1n;
const DT_STRTAB = 5n;
const DT_STRSZ = 10n;
const DT_SONAME = 14n;
const DT_RPATH = 15n;
const DT_RUNPATH = 29n;

/**
 * The search folders of Debian's loader on an arch: ld.so.conf.d's multiarch ones first,
 * then the loader's built-in ones (amd64's glibc adds /lib64; arm64's has no lib64).
 */
export function libraryDirs(arch: Arch): readonly string[] {
  const { multiarch } = archFacts(arch);
  return [
    `/lib/${multiarch}`,
    `/usr/lib/${multiarch}`,
    ...(arch === "amd64" ? ["/lib64"] : []),
    "/lib",
    "/usr/lib",
  ];
}

/** The search folders of Debian's loader on amd64. */
export const LIBRARY_DIRS = libraryDirs("amd64");

/** ELF's names of the machines liken builds for, for error messages. */
const MACHINE_NAMES: Readonly<Record<number, string>> = { 62: "x86-64", 183: "AArch64" };

function machineName(machine: number): string {
  return MACHINE_NAMES[machine] ?? `ELF machine ${machine}`;
}

/** The dynamic-linking facts of `file`, or undefined when it is not a little-endian ELF64 file. */
export async function findElfInfo(file: string): Promise<ElfInfo | undefined> {
  return withElfFile(file, async ({ header, segments, read }) => {
    const type = header.readUInt16LE(16);
    const machine = header.readUInt16LE(18);

    const interp = segments.find((s) => s.type === PT_INTERP);
    const interpreter = interp
      ? cString(await read(interp.offset, Number(interp.filesz)), 0)
      : undefined;

    const dynamic = segments.find((s) => s.type === PT_DYNAMIC);
    const info = { machine, type, interpreter, soname: undefined, rpath: [], runpath: [] };
    if (!dynamic) return { ...info, needed: [] };
    const entries = await read(dynamic.offset, Number(dynamic.filesz));
    const tags: [bigint, bigint][] = [];
    for (let at = 0; at + 16 <= entries.length; at += 16) {
      const tag = entries.readBigInt64LE(at);
      if (tag === DT_NULL) break;
      tags.push([tag, entries.readBigUInt64LE(at + 8)]);
    }
    const value = (tag: bigint) => tags.find(([t]) => t === tag)?.[1];
    const strtabAddress = value(DT_STRTAB);
    const strsz = value(DT_STRSZ);
    if (strtabAddress === undefined || strsz === undefined) return { ...info, needed: [] };
    // DT_STRTAB is a virtual address: the PT_LOAD segment that maps it gives its file offset.
    const load = segments.find(
      (s) => s.type === PT_LOAD && s.vaddr <= strtabAddress && strtabAddress < s.vaddr + s.filesz,
    );
    if (!load) throw new Error(`${file}: DT_STRTAB lies in no loaded segment`);
    const strtab = await read(load.offset + Number(strtabAddress - load.vaddr), Number(strsz));
    const strings = (tag: bigint) =>
      tags.filter(([t]) => t === tag).map(([, v]) => cString(strtab, Number(v)));
    const paths = (tag: bigint) => strings(tag).flatMap((s) => s.split(":").filter(Boolean));
    return {
      ...info,
      needed: strings(DT_NEEDED),
      soname: strings(DT_SONAME)[0],
      rpath: paths(DT_RPATH),
      runpath: paths(DT_RUNPATH),
    };
  });
}

function cString(buffer: Buffer, offset: number): string {
  const end = buffer.indexOf(0, offset);
  return buffer.subarray(offset, end < 0 ? buffer.length : end).toString("utf8");
}

/** A path inside `root` with its symlinks followed the way they would be with `root` as /. */
interface Resolved {
  /** The real file, a host path inside root. */
  readonly real: string;
  /** Every symlink passed on the way (host paths inside root). */
  readonly links: readonly string[];
}

/**
 * Follows `path` (absolute as seen from inside `root`) component by component; absolute
 * symlink targets restart at `root`, `..` never leaves it. Undefined when nothing is there.
 */
export async function resolveInRoot(root: string, path: string): Promise<Resolved | undefined> {
  const done: string[] = [];
  const todo = path.split("/").filter((c) => c !== "" && c !== ".");
  const links: string[] = [];
  let hops = 0;
  while (todo.length > 0) {
    const part = todo.shift()!;
    if (part === "..") {
      done.pop();
      continue;
    }
    const host = join(root, ...done, part);
    // A path that does not resolve in the root is not found, as ld.so would not find it.
    const info = await lstat(host).catch(() => undefined);
    if (!info) return undefined;
    if (!info.isSymbolicLink()) {
      done.push(part);
      continue;
    }
    if (++hops > 40) throw new Error(`${host}: too many levels of symbolic links`);
    links.push(host);
    const target = await readlink(host);
    if (target.startsWith("/")) done.length = 0;
    todo.unshift(...target.split("/").filter((c) => c !== "" && c !== "."));
  }
  return { real: join(root, ...done), links };
}

/** The path as seen from inside `root` (`/usr/lib/...`), for $ORIGIN. */
function insideRoot(root: string, hostPath: string): string | undefined {
  const rel = relative(root, hostPath);
  if (rel.startsWith("..") || rel === "") return undefined;
  return `/${rel.split(sep).join("/")}`;
}

interface Loaded {
  readonly host: string;
  readonly elf: ElfInfo;
  /** Who needed it first: `sfdisk`, then `sfdisk -> libfdisk.so.1`, for error messages. */
  readonly chain: string;
  /** The executable it was loaded for: its DT_RPATH applies to every object it loads. */
  readonly executable: ElfInfo;
}

/**
 * Every library path inside `root` that the loader opens to run `binaries` (host paths,
 * inside `root` or not): the interpreter, each DT_NEEDED found the way ld.so searches
 * (DT_RPATH, DT_RUNPATH, then the arch's libraryDirs), transitively, with every symlink on
 * the way (the soname link and its target both), sorted. Throws naming the binary and the
 * library when no package provides one, and naming a binary built for another machine than
 * `arch` (an amd64 node handed to an arm64 tree).
 */
export async function resolveLibraries(
  binaries: readonly string[],
  root: string,
  arch: Arch = "amd64",
): Promise<string[]> {
  const { elfMachine } = archFacts(arch);
  const searchDirs = libraryDirs(arch);
  const found = new Set<string>();
  const seen = new Set<string>();
  const queue: Loaded[] = [];
  const add = (resolved: Resolved) => {
    for (const l of resolved.links) found.add(l);
    found.add(resolved.real);
  };

  for (const binary of binaries) {
    const inRoot = insideRoot(root, binary);
    const resolved = inRoot ? await resolveInRoot(root, inRoot) : { real: binary, links: [] };
    if (!resolved)
      throw new LikenError({
        kind: "failed",
        what: `${binary} does not exist`,
        hint: "add the Debian package that ships it to image-build/packages.json, then run npx tsx scripts/lock-packages.ts",
      });
    const elf = await findElfInfo(resolved.real);
    if (!elf) continue; // a script: its interpreter is the caller's business
    if (elf.machine !== elfMachine)
      throw new LikenError({
        kind: "failed",
        what: `${binary} is an ${machineName(elf.machine)} binary, but the image is built for ${arch} (${machineName(elfMachine)})`,
        hint: `take it from ${arch}'s inputs (requireUnpackedInputs and requireNodeBinary with arch ${arch})`,
      });
    if (seen.has(resolved.real)) continue;
    seen.add(resolved.real);
    queue.push({ host: resolved.real, elf, chain: basename(binary), executable: elf });
    if (elf.interpreter) {
      const interp = await resolveInRoot(root, elf.interpreter);
      if (!interp) throw missing(basename(binary), `its interpreter ${elf.interpreter}`);
      add(interp);
    }
  }

  for (let i = 0; i < queue.length; i++) {
    const object = queue[i]!;
    const exe = object.executable;
    const origin = insideRoot(root, dirname(object.host)) ?? dirname(object.host);
    const expand = (dirs: readonly string[]) =>
      dirs.map((d) => d.replace(/\$(ORIGIN\b|\{ORIGIN\})/g, origin));
    const dirs = [
      ...(object.elf.runpath.length ? [] : expand(object.elf.rpath)),
      ...(exe === object.elf || exe.runpath.length ? [] : expand(exe.rpath)),
      ...expand(object.elf.runpath),
      ...searchDirs,
    ];
    for (const name of object.elf.needed) {
      const library = await findLibrary(root, name, dirs, object.elf.machine);
      if (!library) throw missing(object.chain, name);
      add(library.resolved);
      if (seen.has(library.resolved.real)) continue;
      seen.add(library.resolved.real);
      queue.push({
        host: library.resolved.real,
        elf: library.elf,
        chain: `${object.chain} -> ${name}`,
        executable: exe,
      });
    }
  }
  return [...found].sort();
}

async function findLibrary(
  root: string,
  name: string,
  dirs: readonly string[],
  machine: number,
): Promise<{ resolved: Resolved; elf: ElfInfo } | undefined> {
  const candidates = name.includes("/") ? [name] : dirs.map((d) => posix.join(d, name));
  for (const candidate of candidates) {
    const resolved = await resolveInRoot(root, candidate);
    if (!resolved) continue;
    // A file that is not ELF (a linker script) is skipped, as ld.so skips it.
    const elf = await findElfInfo(resolved.real).catch(() => undefined);
    // ld.so skips files of another machine (an i386 library in /lib, say) and keeps looking
    if (elf && elf.machine === machine) return { resolved, elf };
  }
  return undefined;
}

function missing(chain: string, library: string): LikenError {
  return new LikenError({
    kind: "failed",
    what: `${chain} needs ${library}, and no package in image-build/packages.json ships it`,
    hint: "add the Debian package that ships it to image-build/packages.json, then run npx tsx scripts/lock-packages.ts",
  });
}
