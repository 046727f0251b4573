// Copies a file of the unpacked Debian tree into an initramfs tree at the same path,
// symlinks kept as they are (the loader and libraries are reached through them).
import { copyFile, lstat, mkdir, readlink, rm, symlink } from "node:fs/promises";
import { dirname, join, relative } from "node:path";

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
