// modinfo(8) from kmod: the firmware files a kernel module asks the kernel's loader for. The
// release build reads them from the module files it carries, so the root carries exactly
// the firmware its drivers name.
import { run } from "./exec.ts";

const AT_ONCE = 8; // modinfo takes a few ms per file: eight at a time keep both cores busy

/** `modinfo -F firmware FILE` of each file (a .ko path, not a name: no lookup in /lib/modules). */
export async function readModuleFirmware(files: readonly string[]): Promise<Map<string, string[]>> {
  const out = new Map<string, string[]>();
  const queue = [...files];
  const worker = async () => {
    for (let file = queue.shift(); file; file = queue.shift()) {
      const { stdout } = await run("modinfo", [
        "--field",
        "firmware", // one firmware file name a line, nothing else
        file,
      ]);
      out.set(
        file,
        stdout
          .split("\n")
          .map((l) => l.trim())
          .filter(Boolean),
      );
    }
  };
  await Promise.all(Array.from({ length: AT_ONCE }, worker));
  return out;
}
