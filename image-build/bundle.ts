// The app as one file each: dist/liken-stick.cjs is the command the stick runs,
// dist/liken-agent.cjs the boot agent every release's root runs. The tests bundle
// test/cli-entry.ts the same way (test/global-setup.ts). CommonJS, not an ES module: only a
// script takes V8's code cache in Node.js 20 (image-build/code-cache.ts).
import { rename } from "node:fs/promises";
import { join } from "node:path";
import { repoRoot } from "../common/repo-root.ts";

/** Bundles cli/main.ts into dist/liken-stick.cjs; returns the path. */
export function bundleCommand(): Promise<string> {
  return bundleEntry(join(repoRoot(), "cli/main.ts"), join(repoRoot(), "dist/liken-stick.cjs"));
}

/** The installed machine's boot agent (agent/main.ts), which every release's initramfs runs. */
export function bundleAgent(): Promise<string> {
  return bundleEntry(join(repoRoot(), "agent/main.ts"), join(repoRoot(), "dist/liken-agent.cjs"));
}

/** Bundles `entry` and everything it imports into the CommonJS file `outfile`; returns its path. */
export async function bundleEntry(entry: string, outfile: string): Promise<string> {
  // Loaded here, not at the top: the bundled command (which includes the image builder) must
  // start on the stick, where esbuild is not installed.
  const esbuild = await import("esbuild");
  // Built beside the target, then renamed: builds running side by side (tests) never see
  // a half-written bundle.
  const temporary = `${outfile}.${process.pid}-${Math.random().toString(36).slice(2)}`;
  await esbuild.build({
    entryPoints: [entry],
    outfile: temporary,
    bundle: true,
    platform: "node",
    target: "node20",
    format: "cjs",
    minifySyntax: true,
    // The sources are ES modules: import.meta.url is the bundle's own URL.
    banner: { js: 'const __liken_url = require("node:url").pathToFileURL(__filename).href;' },
    define: { "import.meta.url": "__liken_url" },
    legalComments: "none",
    // The image builder imports this file; esbuild itself (a native binary) stays outside.
    external: ["esbuild"],
    logLevel: "warning",
  });
  await rename(temporary, outfile);
  return outfile;
}
