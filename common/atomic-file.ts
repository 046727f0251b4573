// Writes a file so a reader sees the old contents or the new, never a mix, even across a
// power loss: temporary file, fsync, rename, fsync of the directory.
import { mkdir, open, rename } from "node:fs/promises";
import { dirname } from "node:path";

export async function writeFileAtomic(
  path: string,
  data: string | Uint8Array,
  mode = 0o640,
): Promise<void> {
  await mkdir(dirname(path), { recursive: true });
  const temporary = `${path}.tmp-${process.pid}`;
  const file = await open(temporary, "w", mode);
  try {
    await file.writeFile(data);
    await file.chmod(mode); // the umask may have narrowed or widened it
    await file.sync();
  } finally {
    await file.close();
  }
  await rename(temporary, path);
  const dir = await open(dirname(path), "r");
  try {
    await dir.sync();
  } finally {
    await dir.close();
  }
}
