// V8's code cache for a bundled program (the stick's command, a release's boot agent):
// Node.js 20 compiles a 1.5 MB bundle at every start, which under emulation costs a second
// before the first line of ours runs. The build evaluates the bundle once with the same
// Node.js binary the image carries and saves the compiled code beside it
// (vm.Script#createCachedData); a small start file compiles the bundle with that cache. A
// cache that does not fit (another Node.js) is rejected by V8 and the bundle compiles as
// without it: slower, never wrong. The bundle and its cache are built together, so V8's
// check (source length, V8 version, flags) is not all that keeps them a pair.
import { copyFile, mkdir, writeFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import { type NodeTarget, runNodeScript } from "../tools/node.ts";

/** The cache's name beside the bundle. */
export function codeCacheFile(bundle: string): string {
  return `${bundle}.v8cache`;
}

// Both the start file and the build's warm-up compile the bundle as Node.js compiles a
// CommonJS module (Module.wrap), with the same options: V8 takes a cache only for the same
// source. `process.argv[1]` becomes the bundle, so the bundle sees itself invoked.
const COMPILE = `"use strict";
const { readFileSync } = require("node:fs");
const Module = require("node:module");
const { dirname } = require("node:path");
const vm = require("node:vm");
function compile(source, file, cachedData) {
  return new vm.Script(Module.wrap(readFileSync(source, "utf8")), {
    filename: file,
    cachedData,
    importModuleDynamically: vm.constants.USE_MAIN_CONTEXT_DEFAULT_LOADER,
  });
}
function evaluate(script, file) {
  const m = new Module(file, null);
  m.filename = file;
  m.paths = Module._nodeModulePaths(dirname(file));
  script.runInThisContext()(m.exports, Module.createRequire(file), m, file, dirname(file));
  return m.exports;
}
`;

/** The start file for `bundle` (its path where the image holds it): node START ARGS... */
export function startFileSource(bundle: string): string {
  return `// Starts ${bundle} with the V8 code cache built beside it (liken-stick's image-build/code-cache.ts).
${COMPILE}const file = ${JSON.stringify(bundle)};
let cache;
try {
  cache = readFileSync(${JSON.stringify(codeCacheFile(bundle))});
} catch {}
process.argv[1] = file;
evaluate(compile(file, file, cache), file);
`;
}

// The build's warm-up: compiles the bundle under the name the image runs it by, evaluates
// its top level (every module's own code; argv[1] is this file, so the bundle's entry does
// not run), runs the entry's warmUp (which loads the modules it imports lazily: their code
// runs only then), then saves what V8 compiled, functions included.
const WARM_UP = `${COMPILE}const [source, file, out] = process.argv.slice(2);
const script = compile(source, file, undefined);
const entry = evaluate(script, file);
Promise.resolve(typeof entry.warmUp === "function" ? entry.warmUp() : undefined).then(() => {
  require("node:fs").writeFileSync(out, script.createCachedData());
  process.exit(0);
});
`;

/**
 * Writes the code cache of the bundle `source` to `out`, with `node`, the binary that will
 * run it, under `runAs`, the bundle's path in the image.
 */
export async function writeCodeCache(
  node: string,
  source: string,
  runAs: string,
  out: string,
  workDir: string,
  target?: NodeTarget,
): Promise<void> {
  const warmUp = join(workDir, "code-cache-warm-up.cjs");
  await writeFile(warmUp, WARM_UP);
  await runNodeScript(node, warmUp, [source, runAs, out], target);
}

/**
 * Copies `bundle` to `at` inside `tree` (an absolute path in the image), with its code cache
 * beside it and the start file at `start`: the image runs `node START ARGS...`.
 */
export async function installBundle(o: {
  readonly tree: string;
  readonly node: string;
  readonly bundle: string;
  readonly at: string;
  readonly start: string;
  readonly workDir: string;
  /** An image of another arch: its Node.js runs under QEMU's user-mode emulator. */
  readonly target?: NodeTarget;
}): Promise<void> {
  await mkdir(join(o.tree, dirname(o.at)), { recursive: true });
  await copyFile(o.bundle, join(o.tree, o.at));
  await writeCodeCache(
    o.node,
    o.bundle,
    o.at,
    join(o.tree, codeCacheFile(o.at)),
    o.workDir,
    o.target,
  );
  await writeFile(join(o.tree, o.start), startFileSource(o.at));
}
