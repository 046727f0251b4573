// debugfs(8): reads files out of an ext4 filesystem inside a disk or image file, without
// mounting it and without root (the state partition, for `inspect`). It opens read-only
// unless given -w, which it never is here.
import { run } from "./exec.ts";

/**
 * The text of `file` (an absolute path) in the ext4 filesystem at byte `offset` of `disk`;
 * undefined when no such file exists. Throws when the filesystem cannot be read.
 */
export async function readExt4File(
  disk: string,
  offset: number,
  file: string,
): Promise<string | undefined> {
  // unix_io takes everything after the first "?" as its options, and debugfs splits its
  // request at blanks: neither name can carry those characters.
  if (disk.includes("?")) throw new Error(`debugfs cannot open ${disk}: its name holds a "?"`);
  if (!/^\/[\w./-]+$/.test(file)) throw new Error(`debugfs cannot name the file ${file}`);
  const result = await run("debugfs", [
    "-R",
    `cat ${file}`, // one request, then exit
    `${disk}?offset=${offset}`, // unix_io's option: the filesystem starts at this byte
  ]);
  // debugfs exits 0 even when it cannot open the filesystem: stderr is the only verdict.
  const complaints = result.stderr
    .split("\n")
    .filter((line) => line.trim() !== "" && !/^debugfs \d/.test(line));
  if (complaints.length === 0) return result.stdout;
  if (complaints.length === 1 && /: File not found by ext2_lookup\s*$/.test(complaints[0] ?? "")) {
    return undefined;
  }
  throw new Error(
    `debugfs cannot read ${file} from the ext4 filesystem at byte ${offset} of ${disk}: ${complaints.join(" | ")}`,
  );
}
