// Puts kernel modules into an initramfs tree: the closure of the names asked for, minus the
// ones left out on purpose (with everything that needs them), decompressed (busybox
// modprobe reads plain .ko), with the indexes depmod makes for exactly that set.
import { copyFile, mkdir } from "node:fs/promises";
import { join } from "node:path";
import { writeModuleIndexes } from "../tools/depmod.ts";
import {
  type BootModules,
  bootModules,
  decompressModules,
  moduleClosure,
  readModuleIndex,
} from "./inputs/index.ts";
import type { UnpackedInputs } from "./unpacked.ts";

export async function installModules(
  inputs: UnpackedInputs,
  tree: string,
  names: readonly string[],
  without: readonly string[] = [],
): Promise<BootModules> {
  const index = await readModuleIndex(inputs.root);
  // A module left out takes with it every wanted module whose closure needs it.
  const kept = names.filter((n) => !moduleClosure(index, [n]).some((m) => without.includes(m)));
  const modules = await bootModules(inputs.root, kept, { decompressed: true });
  const from = join(inputs.root, "lib", "modules", inputs.kernelVersion);
  const to = join(tree, "lib", "modules", inputs.kernelVersion);
  await mkdir(to, { recursive: true });
  const sources = modules.modules.map((m) => index.modules.get(m.name)?.path ?? m.path);
  await decompressModules(
    sources.map(
      (path, i) => [join(from, path), join(to, modules.modules[i]?.path ?? path)] as const,
    ),
  );
  for (const f of ["modules.builtin", "modules.builtin.modinfo", "modules.order"]) {
    // A kernel package without this list leaves it out; depmod writes the indexes below.
    await copyFile(join(from, f), join(to, f)).catch(() => undefined);
  }
  await writeModuleIndexes(tree, inputs.kernelVersion);
  return modules;
}
