// depmod(8): writes a kernel's module indexes (modules.dep, modules.alias, modules.softdep,
// ...). Debian's kernel package ships none of them (its postinst runs depmod), so the image
// build runs it on the unpacked package.
import { run } from "./exec.ts";

/** Writes the indexes of `<root>/lib/modules/<kernel>/` from the modules found there. */
export async function writeModuleIndexes(root: string, kernel: string): Promise<void> {
  await run(
    "depmod",
    [
      "--all", // every module of the tree
      "--basedir",
      root, // the unpacked package, never the host's /lib/modules
      kernel,
    ],
    { timeoutMs: 5 * 60_000 },
  );
}
