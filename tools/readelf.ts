// readelf(1) from binutils: the reference the project's own ELF reader is tested against.
import { run } from "./exec.ts";

/** The DT_NEEDED names of an ELF file, in the order readelf prints them. */
export async function readNeeded(file: string): Promise<string[]> {
  const { stdout } = await run("readelf", [
    "--dynamic", // only the dynamic section
    "--wide", // one entry per line, never truncated
    file,
  ]);
  return [...stdout.matchAll(/\(NEEDED\)\s+Shared library: \[([^\]]+)\]/g)].map((m) => m[1]!);
}
