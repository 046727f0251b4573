// The V8 code cache an image carries beside the command's bundle: made with the Node.js the
// image carries (the warm-up runs the entry's warmUp, and fails the build if it throws),
// that Node.js takes it (a rejected cache costs every start the whole compile, silently),
// and the start file runs the command with it.
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import pkg from "../package.json" with { type: "json" };
import { run } from "../tools/exec.ts";
import { bundleCommand } from "./bundle.ts";
import { codeCacheFile, installBundle } from "./code-cache.ts";
import { requireNodeBinary } from "./inputs/node.ts";

let dir: string;
let node: string;
let bundle: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "liken-code-cache-"));
  node = await requireNodeBinary();
  // The image's paths are absolute; here they are the test's folder, under the root "/".
  bundle = join(dir, "liken-stick.cjs");
  await installBundle({
    tree: "/",
    node,
    bundle: await bundleCommand(),
    at: bundle,
    start: join(dir, "start.cjs"),
    workDir: dir,
  });
}, 120_000);
afterAll(() => rm(dir, { recursive: true, force: true }));

describe("the command's code cache", () => {
  it("is taken by the image's Node.js for the bundle compiled as the start file compiles it", async () => {
    // What V8 answers for the cache, compiling the bundle as a CommonJS module is compiled.
    const check = join(dir, "check.cjs");
    await writeFile(
      check,
      `const { readFileSync } = require("node:fs");
const Module = require("node:module");
const vm = require("node:vm");
const [file, cache] = process.argv.slice(2);
const script = new vm.Script(Module.wrap(readFileSync(file, "utf8")), {
  filename: file,
  cachedData: readFileSync(cache),
  importModuleDynamically: vm.constants.USE_MAIN_CONTEXT_DEFAULT_LOADER,
});
console.log(script.cachedDataRejected ? "rejected" : "taken");
`,
    );
    const answer = await run(node, [check, bundle, codeCacheFile(bundle)]);
    expect(answer.stdout.trim()).toBe("taken");
  });

  it("runs the command through the start file", async () => {
    const version = await run(node, [join(dir, "start.cjs"), "--version"]);
    expect(version.stdout).toContain(pkg.version);
    expect(await readFile(join(dir, "start.cjs"), "utf8")).toContain(codeCacheFile(bundle));
  });
});
