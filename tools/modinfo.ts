// modinfo(8) from kmod: the firmware files a kernel module asks the kernel's loader for. The
// release build reads them from the module files it carries, so the root carries exactly
// the firmware its drivers name.
import { run } from "./exec.ts";

/**
 * The `firmware` fields of each module file (.ko paths, not names: no lookup in
 * /lib/modules). One modinfo for all of them: a run per file cost the build 2 s for 100
 * modules, nearly all of it starting processes.
 */
export async function readModuleFirmware(files: readonly string[]): Promise<Map<string, string[]>> {
  if (files.length === 0) return new Map();
  const { stdout } = await run("modinfo", [...files]);
  return parseModinfoFirmware(stdout, files);
}

/**
 * Exported for tests: modinfo prints each file's fields in the order the files were given,
 * each block starting with its `filename:` line.
 */
export function parseModinfoFirmware(
  text: string,
  files: readonly string[],
): Map<string, string[]> {
  const blocks: string[][] = [];
  for (const line of text.split("\n")) {
    const field = /^([\w.-]+):\s*(.*)$/.exec(line);
    if (field?.[1] === "filename") blocks.push([]);
    else if (field?.[1] === "firmware" && field[2]) blocks.at(-1)?.push(field[2].trim());
  }
  if (blocks.length !== files.length)
    throw new Error(`modinfo printed ${blocks.length} modules for ${files.length} files`);
  return new Map(files.map((f, i) => [f, blocks[i]!]));
}
