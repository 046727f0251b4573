// dmesg(1): the kernel's log since boot, as lines without their timestamps. The boot agent
// looks in it for what the kernel said about a declared module's parameters.
import { run } from "./exec.ts";

export async function kernelLog(): Promise<string[]> {
  const { stdout } = await run("dmesg", [], { timeoutMs: 10_000 });
  return stdout
    .split("\n")
    .map((l) => l.replace(/^\[\s*\d+\.\d+\]\s*/, "").trimEnd())
    .filter((l) => l !== "");
}
