// Writes a reproducible initramfs archive (cpio "newc", the format the kernel unpacks):
// entries sorted by path, owned by root, every timestamp the same, inode numbers counted
// from 1. The same tree always gives the same bytes.
import { lstat, open, readdir, readFile, readlink } from "node:fs/promises";
import { join } from "node:path";

export type CpioEntry =
  | { readonly path: string; readonly type: "dir"; readonly mode: number }
  | {
      readonly path: string;
      readonly type: "file";
      readonly mode: number;
      readonly source: string;
      readonly size: number;
    }
  | { readonly path: string; readonly type: "symlink"; readonly target: string }
  | {
      readonly path: string;
      readonly type: "char";
      readonly mode: number;
      readonly major: number;
      readonly minor: number;
    };

const S_IFDIR = 0o040000;
const S_IFREG = 0o100000;
const S_IFLNK = 0o120000;
const S_IFCHR = 0o020000;

/** Every file, folder and symlink under `root`, as archive entries with relative paths. */
export async function entriesOf(root: string): Promise<CpioEntry[]> {
  const out: CpioEntry[] = [];
  async function walk(rel: string): Promise<void> {
    for (const name of (await readdir(join(root, rel))).sort()) {
      const path = rel ? `${rel}/${name}` : name;
      const full = join(root, path);
      const info = await lstat(full);
      if (info.isSymbolicLink()) out.push({ path, type: "symlink", target: await readlink(full) });
      else if (info.isDirectory()) {
        out.push({ path, type: "dir", mode: info.mode & 0o7777 });
        await walk(path);
      } else if (info.isFile())
        out.push({ path, type: "file", mode: info.mode & 0o7777, source: full, size: info.size });
    }
  }
  await walk("");
  return out;
}

/** Writes the archive of `entries` to `file`, every mtime set to `epoch`. */
export async function writeCpio(
  file: string,
  entries: readonly CpioEntry[],
  epoch: number,
): Promise<void> {
  const sorted = [...entries].sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  const out = await open(file, "w");
  let offset = 0;
  const put = async (b: Buffer) => {
    await out.write(b, 0, b.length, offset);
    offset += b.length;
  };
  const pad = async () => {
    if (offset % 4) await put(Buffer.alloc(4 - (offset % 4)));
  };
  try {
    let ino = 1;
    for (const e of sorted) {
      const data =
        e.type === "file"
          ? await readFile(e.source)
          : e.type === "symlink"
            ? Buffer.from(e.target)
            : Buffer.alloc(0);
      const mode =
        e.type === "dir"
          ? S_IFDIR | e.mode
          : e.type === "file"
            ? S_IFREG | e.mode
            : e.type === "char"
              ? S_IFCHR | e.mode
              : S_IFLNK | 0o777;
      const [rmajor, rminor] = e.type === "char" ? [e.major, e.minor] : [0, 0];
      await put(
        header(ino++, mode, e.type === "dir" ? 2 : 1, epoch, data.length, rmajor, rminor, e.path),
      );
      await pad();
      if (data.length > 0) await put(data);
      await pad();
    }
    await put(header(0, 0, 1, 0, 0, 0, 0, "TRAILER!!!"));
    await pad();
  } finally {
    await out.close();
  }
}

function header(
  ino: number,
  mode: number,
  nlink: number,
  mtime: number,
  size: number,
  rmajor: number,
  rminor: number,
  name: string,
): Buffer {
  const hex = (n: number) => n.toString(16).padStart(8, "0");
  const nameBytes = Buffer.from(`${name}\0`);
  const fields = [
    "070701",
    hex(ino),
    hex(mode),
    hex(0),
    hex(0),
    hex(nlink),
    hex(mtime),
    hex(size),
    hex(0),
    hex(0),
    hex(rmajor),
    hex(rminor),
    hex(nameBytes.length),
    hex(0),
  ];
  return Buffer.concat([Buffer.from(fields.join(""), "ascii"), nameBytes]);
}
