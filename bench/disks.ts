// Times `liken-stick disks --json` on 16 and on 24 image files (a 24-disk JBOD) against
// `wipefs --no-act` and `blkid -p` on the same files, in the same run, and prints the ratios
// and the time per disk at both counts (docs/design.md section 10: at most 1 s per disk),
// then what the probe reads per disk, and what that costs on a spinning disk (docs/disks.md,
// "What is read"). Timings are printed, never judged: a shared machine's hour decides them.
// Run: npm run bench:disks
import { mkdtemp, rm, truncate } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { HEAD_BYTES, SAMPLE_BYTES, SAMPLE_COUNT, TAIL_BYTES } from "../hardware/disks/probe.ts";
import { bundleCommand } from "../image-build/bundle.ts";
import { run } from "../tools/exec.ts";

const RUNS = 7;
const COUNTS = [16, 24];
// A 7200 rpm disk: about 12 ms per seek (average seek plus half a turn), 150 MB/s.
const HDD_SEEK_MS = 12;
const HDD_MB_PER_S = 150;
// blkid's probe at the four usual starts reads near the head (already read); the 14
// common second-partition starts and the table's add one seek each: 20 on a liken disk.
const PROBE_SEEKS = 20;
const BUNDLE = new URL("../dist/liken-stick.cjs", import.meta.url).pathname;

async function median(fn: () => Promise<unknown>): Promise<number> {
  const times: number[] = [];
  for (let i = 0; i < RUNS; i++) {
    const t = performance.now();
    await fn();
    times.push(performance.now() - t);
  }
  return times.sort((a, b) => a - b)[Math.floor(RUNS / 2)] as number;
}

interface Timing {
  readonly disks: number;
  readonly ours: number;
  readonly wipefs: number;
  readonly blkid: number;
}

// Each count's peers run right after it, so a slow minute weighs on both sides of its ratio.
async function time(files: readonly string[]): Promise<Timing> {
  const ours = await median(() => run(process.execPath, [BUNDLE, "disks", "--json", ...files]));
  const wipefs = await median(() => run("wipefs", ["--no-act", ...files]));
  // exit 2: some disk holds nothing blkid knows
  const blkid = await median(() => run("blkid", ["-p", ...files], { okExitCodes: [2] }));
  return { disks: files.length, ours, wipefs, blkid };
}

const ms = (n: number) => `${n.toFixed(0)} ms`.padStart(7);
const perDisk = (n: number, disks: number) => `${(n / disks).toFixed(1)} ms per disk`;

function report(t: Timing, bare: number): void {
  console.log(
    `disks --json on ${t.disks} image files: ${ms(t.ours)} (median of ${RUNS}), ${perDisk(t.ours, t.disks)}`,
  );
  console.log(`wipefs --no-act on the same:      ${ms(t.wipefs)}, ${perDisk(t.wipefs, t.disks)}`);
  console.log(`blkid -p on the same:             ${ms(t.blkid)}, ${perDisk(t.blkid, t.disks)}`);
  console.log(`ratio disks / wipefs: ${(t.ours / t.wipefs).toFixed(2)}`);
  console.log(`ratio disks / blkid -p: ${(t.ours / t.blkid).toFixed(2)}`);
  console.log(`ratio (disks - node startup) / wipefs: ${((t.ours - bare) / t.wipefs).toFixed(2)}`);
  console.log("");
}

const dir = await mkdtemp(join(tmpdir(), "liken-bench-disks-"));
try {
  await bundleCommand();
  const files: string[] = [];
  for (let i = 0; i < Math.max(...COUNTS); i++) {
    const file = join(dir, `disk${i}.img`);
    await truncate(file, 0).catch(() => undefined);
    await run("truncate", ["-s", "2G", file]);
    // a mix: blank, ext4, GPT
    if (i % 4 === 1) await run("mkfs.ext4", ["-q", "-F", file]);
    if (i % 4 === 2) await run("sfdisk", ["-q", file], { input: "label: gpt\nsize=100M\n" });
    files.push(file);
  }
  const timings: Timing[] = [];
  for (const n of COUNTS) timings.push(await time(files.slice(0, n)));
  const bare = await median(() => run(process.execPath, ["-e", "0"]));
  console.log(`node -e 0 (startup alone):        ${ms(bare)}`);
  console.log("");
  for (const t of timings) report(t, bare);
  // The budget is per disk: the line that says whether it holds as disks are added.
  const line = timings.map(
    (t) =>
      `${t.disks} disks ${(t.ours / t.disks).toFixed(1)} ms (wipefs ${(t.wipefs / t.disks).toFixed(1)} ms)`,
  );
  console.log(`disks --json per disk: ${line.join(", ")}; the budget is 1000 ms per disk`);
  const bytes = HEAD_BYTES + TAIL_BYTES + SAMPLE_COUNT * SAMPLE_BYTES;
  const seeks = 2 + SAMPLE_COUNT + PROBE_SEEKS;
  const hdd = (seeks * HDD_SEEK_MS) / 1000 + bytes / (HDD_MB_PER_S * 1e6);
  console.log(
    `reads per disk: ${(bytes / 2 ** 20).toFixed(0)} MiB in ${seeks} places; on a spinning disk (${HDD_SEEK_MS} ms a seek, ${HDD_MB_PER_S} MB/s) about ${hdd.toFixed(2)} s, whatever its size`,
  );
} finally {
  await rm(dir, { recursive: true, force: true });
}
