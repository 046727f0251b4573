// node(1), the pinned Node.js binary a stick or a release carries, run at build time to make
// V8's code cache for the bundled command (image-build/code-cache.ts).
import { run } from "./exec.ts";

/**
 * Runs `script` with `args` under `node`. `--random-seed=1` makes V8's hash seed fixed, so
 * the code cache it writes is the same bytes at every build; it is not among the flags a
 * code cache is checked against, so a node started without it accepts that cache.
 */
export async function runNodeScript(
  node: string,
  script: string,
  args: readonly string[],
): Promise<void> {
  await run(node, ["--random-seed=1", script, ...args], { timeoutMs: 120_000 });
}
