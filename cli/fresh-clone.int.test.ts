// bin/liken-stick on a fresh clone (no node_modules yet): one line saying to run npm run
// setup, exit 1, instead of Node.js's stack trace about a missing module.
import { copyFile, mkdir, mkdtemp, rm, symlink } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { repoRoot } from "../common/repo-root.ts";
import { run } from "../tools/exec.ts";

let clone: string;
beforeAll(async () => {
  clone = await mkdtemp(join(tmpdir(), "liken-fresh-clone-"));
  await mkdir(join(clone, "bin"));
  await copyFile(join(repoRoot(), "bin/liken-stick"), join(clone, "bin/liken-stick"));
});
afterAll(() => rm(clone, { recursive: true, force: true }));

const line = (root: string) =>
  `liken-stick: this checkout is not set up: ${root}/node_modules is missing (run npm run setup in ${root}, then try again)\n`;

describe("bin/liken-stick without node_modules", () => {
  it("says to run npm run setup, in one line, and exits 1", async () => {
    const r = await run(join(clone, "bin/liken-stick"), ["--help"], { okExitCodes: [1] });
    expect(r).toEqual({ stdout: "", stderr: line(clone), exitCode: 1 });
  });

  it("names the checkout a symlink to it leads to", async () => {
    const link = join(clone, "liken-stick-link");
    await symlink(join(clone, "bin/liken-stick"), link);
    const r = await run(link, ["disks"], { okExitCodes: [1] });
    expect(r.stderr).toBe(line(clone));
  });
});
