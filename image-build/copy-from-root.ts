// Copies a file of the unpacked Debian tree into an initramfs tree at the same path,
// symlinks kept as they are (the loader and libraries are reached through them).
import { copyFile, lstat, mkdir, readlink, rm, symlink } from "node:fs/promises";
import { dirname, join, relative } from "node:path";
import { resolveLibraries } from "./inputs/index.ts";
import type { UnpackedInputs } from "./unpacked.ts";

export async function copyFromRoot(root: string, path: string, tree: string): Promise<void> {
  const rel = relative(root, path);
  if (rel.startsWith("..")) return; // a host path (the Node.js binary) is placed on its own
  const dest = join(tree, rel);
  await mkdir(dirname(dest), { recursive: true });
  const info = await lstat(path);
  await rm(dest, { force: true });
  if (info.isSymbolicLink()) await symlink(await readlink(path), dest);
  else await copyFile(path, dest);
}

/**
 * Copies tools (paths in the unpacked tree) and every library they and `alsoLibrariesOf`
 * load (their DT_NEEDED closure) into `tree`.
 */
export async function installTools(
  inputs: UnpackedInputs,
  tree: string,
  tools: readonly string[],
  alsoLibrariesOf: readonly string[] = [],
): Promise<void> {
  const paths = tools.map((t) => join(inputs.root, t));
  const libraries = await resolveLibraries(
    [...paths, ...alsoLibrariesOf],
    inputs.root,
    inputs.arch,
  );
  for (const path of [...paths, ...libraries]) await copyFromRoot(inputs.root, path, tree);
}
