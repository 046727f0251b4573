// Times `liken-stick disks --json` on 16 image files against `wipefs --no-act` on the same
// files, in the same run, and prints the ratio (docs/design.md section 10).
// Run: npm run bench:disks
import { mkdtemp, rm, truncate } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { bundleCommand } from "../image-build/bundle.ts";
import { run } from "../tools/exec.ts";

const RUNS = 7;
const BUNDLE = new URL("../dist/liken-stick.mjs", import.meta.url).pathname;

async function median(fn: () => Promise<unknown>): Promise<number> {
  const times: number[] = [];
  for (let i = 0; i < RUNS; i++) {
    const t = performance.now();
    await fn();
    times.push(performance.now() - t);
  }
  return times.sort((a, b) => a - b)[Math.floor(RUNS / 2)] as number;
}

const dir = await mkdtemp(join(tmpdir(), "liken-bench-disks-"));
try {
  await bundleCommand();
  const files: string[] = [];
  for (let i = 0; i < 16; i++) {
    const file = join(dir, `disk${i}.img`);
    await truncate(file, 0).catch(() => undefined);
    await run("truncate", ["-s", "2G", file]);
    // a mix: blank, ext4, GPT
    if (i % 4 === 1) await run("mkfs.ext4", ["-q", "-F", file]);
    if (i % 4 === 2) await run("sfdisk", ["-q", file], { input: "label: gpt\nsize=100M\n" });
    files.push(file);
  }
  const ours = await median(() => run(process.execPath, [BUNDLE, "disks", "--json", ...files]));
  const peer = await median(() => run("wipefs", ["--no-act", ...files]));
  const bare = await median(() => run(process.execPath, ["-e", "0"]));
  console.log(`disks --json on 16 image files: ${ours.toFixed(0)} ms (median of ${RUNS})`);
  console.log(`wipefs --no-act on the same:    ${peer.toFixed(0)} ms`);
  console.log(`node -e 0 (startup alone):      ${bare.toFixed(0)} ms`);
  console.log(`ratio disks / wipefs: ${(ours / peer).toFixed(2)}`);
  console.log(`ratio (disks - node startup) / wipefs: ${((ours - bare) / peer).toFixed(2)}`);
} finally {
  await rm(dir, { recursive: true, force: true });
}
