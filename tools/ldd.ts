// ldd(1) from libc-bin: the shared libraries a host program loads, to carry the program
// into a guest or a chroot that lacks them (scripts/capture-net-names.ts takes udevadm).
import { run } from "./exec.ts";

/**
 * The files `program` loads, as ldd resolves them on this host: each library's path, and
 * the dynamic loader's last. linux-vdso has no file and is left out.
 */
export async function sharedLibraries(program: string): Promise<{
  readonly libraries: readonly string[];
  readonly loader: string;
}> {
  const { stdout } = await run("ldd", [program]);
  const libraries: string[] = [];
  let loader: string | undefined;
  for (const line of stdout.split("\n")) {
    const resolved = /=>\s+(\/\S+)\s+\(/.exec(line);
    if (resolved) libraries.push(resolved[1] as string);
    else if (/^\s*\/\S+\s+\(/.test(line)) loader = line.trim().split(/\s+/)[0];
  }
  if (!loader) throw new Error(`ldd named no dynamic loader for ${program}:\n${stdout}`);
  return { libraries, loader };
}
