#!/usr/bin/env node
// Bundles the command into one file, dist/liken-stick.mjs: what the stick runs, and what the
// tests run (so every test also proves the bundle works).
import { build } from "esbuild";

export async function bundle() {
  const root = new URL("..", import.meta.url).pathname;
  await build({
    entryPoints: [`${root}cli/main.ts`],
    outfile: `${root}dist/liken-stick.mjs`,
    bundle: true,
    platform: "node",
    target: "node20",
    format: "esm",
    // Some dependencies (blessed, systeminformation) are CommonJS and call require().
    banner: {
      js: "import { createRequire as __cr } from 'node:module'; const require = __cr(import.meta.url);",
    },
    legalComments: "none",
    logLevel: "warning",
  });
}

if (import.meta.url === `file://${process.argv[1]}`) await bundle();
