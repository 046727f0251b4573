// node(1), the pinned Node.js binary a stick or a release carries, run at build time to make
// V8's code cache for the bundled command (image-build/code-cache.ts). An arm64 image's
// Node.js runs on an amd64 build host under QEMU's user-mode emulator, with the image's own
// loader and libraries (qemu-user(1): -L is the ELF interpreter prefix).
import { type Arch, archFacts, runningArch } from "../common/arch.ts";
import { run } from "./exec.ts";

/** The image's arch, and the unpacked tree its Node.js finds its loader and libraries in. */
export interface NodeTarget {
  readonly arch: Arch;
  readonly sysroot: string;
}

/**
 * Runs `script` with `args` under `node`. `--random-seed=1` makes V8's hash seed fixed, so
 * the code cache it writes is the same bytes at every build; it is not among the flags a
 * code cache is checked against, so a node started without it accepts that cache.
 */
export async function runNodeScript(
  node: string,
  script: string,
  args: readonly string[],
  target?: NodeTarget,
): Promise<void> {
  const words = ["--random-seed=1", script, ...args];
  if (target === undefined || target.arch === runningArch()) {
    await run(node, words, { timeoutMs: 120_000 });
    return;
  }
  await run(`qemu-${archFacts(target.arch).qemu}-static`, ["-L", target.sysroot, node, ...words], {
    timeoutMs: 300_000,
  });
}
