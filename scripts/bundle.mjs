#!/usr/bin/env node
// Bundles the command into one file: dist/liken-stick.mjs is what the stick runs;
// dist/liken-stick-test.mjs is what the tests run, the same code plus the fault-injection
// hooks of installer/test-hooks.ts (which every other build folds away).

import { rename } from "node:fs/promises";

export async function bundle({ testHooks = false } = {}) {
  const root = new URL("..", import.meta.url).pathname;
  return build(
    `${root}cli/main.ts`,
    `${root}dist/liken-stick${testHooks ? "-test" : ""}.mjs`,
    testHooks,
  );
}

/** The installed machine's boot agent (agent/main.ts), which every release's initramfs runs. */
export async function bundleAgent() {
  const root = new URL("..", import.meta.url).pathname;
  return build(`${root}agent/main.ts`, `${root}dist/liken-agent.mjs`, false);
}

async function build(entry, outfile, testHooks) {
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
    format: "esm",
    define: { __LIKEN_TEST_HOOKS__: testHooks ? "true" : "false" },
    minifySyntax: true, // drops the hooks' dead branches
    // Some dependencies (blessed, systeminformation) are CommonJS and call require().
    banner: {
      js: "import { createRequire as __cr } from 'node:module'; const require = __cr(import.meta.url);",
    },
    legalComments: "none",
    // The image builder imports this file; esbuild itself (a native binary) stays outside.
    external: ["esbuild"],
    logLevel: "warning",
  });
  await rename(temporary, outfile);
  return outfile;
}

if (import.meta.url === `file://${process.argv[1]}`) await bundle();
