// readelf(1) from binutils: the reference the project's own ELF reader is tested against.
import { run } from "../tools/exec.ts";

/** The DT_NEEDED names of an ELF file, in the order readelf prints them. */
export async function readNeeded(file: string): Promise<string[]> {
  const { stdout } = await run("readelf", [
    "--dynamic", // only the dynamic section
    "--wide", // one entry per line, never truncated
    file,
  ]);
  return [...stdout.matchAll(/\(NEEDED\)\s+Shared library: \[([^\]]+)\]/g)].map((m) => m[1]!);
}

/** The file offset and size of each PT_LOAD segment, as readelf -l prints them. */
export async function readLoadSegments(file: string): Promise<{ offset: number; size: number }[]> {
  const { stdout } = await run("readelf", ["--program-headers", "--wide", file]);
  // LOAD  Offset VirtAddr PhysAddr FileSiz MemSiz Flg Align
  return [...stdout.matchAll(/^\s*LOAD\s+(0x[0-9a-f]+)\s+\S+\s+\S+\s+(0x[0-9a-f]+)/gm)].map(
    (m) => ({ offset: Number(m[1]), size: Number(m[2]) }),
  );
}

/** The value (a virtual address) and size of each dynamic symbol named `name`. */
export async function readDynamicSymbol(
  file: string,
  name: string,
): Promise<{ value: number; size: number }[]> {
  const { stdout } = await run("readelf", ["--dyn-syms", "--wide", file]);
  // Num: Value Size Type Bind Vis Ndx Name; a size over 99999 is printed in hex
  return [...stdout.matchAll(/^\s*\d+:\s+([0-9a-f]+)\s+(0x[0-9a-f]+|\d+)\s.*\s(\S+)$/gm)]
    .filter((m) => m[3] === name)
    .map((m) => ({ value: Number.parseInt(m[1]!, 16), size: Number(m[2]) }));
}
