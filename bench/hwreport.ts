// Times `liken-stick hwreport --json` against `inxi -F` and `lshw -json` on this machine, in
// the same run, and prints both ratios (docs/design.md section 10: at most half the time of
// inxi -F). systeminformation's getAllData is timed beside them, in this process. Then the
// report inside the stick under QEMU (target under 1 s), beside `liken-stick --help` there,
// which is what starting Node.js alone costs in the guest; and once more with a blank disk
// beside the stick, which the report reads as install would.
// Run: npm run bench:hwreport (its setup installs the peers, inxi and lshw)

import { mkdtemp, rm, truncate, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import si from "systeminformation";
import { bundleCommand } from "../image-build/bundle.ts";
import { shell, waitForShell } from "../test/qemu/guest-shell.ts";
import { startVm, stopAllVms } from "../test/qemu/harness.ts";
import { cachedRelease, cachedStick } from "../testing/cached-build.ts";
import type { VmDisk } from "../testing/qemu/index.ts";
import { run } from "../tools/exec.ts";

const RUNS = 5;
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

await bundleCommand();
const ours = await median(() => run(process.execPath, [BUNDLE, "hwreport", "--json"]));
// inxi -F exits 0; -c0 drops colours, --tty keeps it from asking for a terminal.
const inxi = await median(() => run("inxi", ["-F", "-c0", "--tty"], { timeoutMs: 120_000 }));
const lshw = await median(() => run("lshw", ["-json"], { timeoutMs: 120_000 }));
const bare = await median(() => run(process.execPath, ["-e", "0"]));
const all = await median(() => si.getAllData());

const ms = (n: number) => `${n.toFixed(0)} ms`.padStart(8);
console.log(`hwreport --json          ${ms(ours)} (median of ${RUNS})`);
console.log(`inxi -F                  ${ms(inxi)}`);
console.log(`lshw -json               ${ms(lshw)}`);
console.log(`si.getAllData()          ${ms(all)} (in process, no node startup)`);
console.log(`node -e 0 (startup)      ${ms(bare)}`);
console.log(`hwreport / inxi -F:  ${(ours / inxi).toFixed(2)} (target at most 0.50)`);
console.log(`hwreport / lshw:     ${(ours / lshw).toFixed(2)}`);
console.log(`hwreport under 1 s:  ${ours < 1000 ? "yes" : "no"}`);

// Inside the stick: booted to a shell (liken.shell=1), each command timed by the shell.
const stick = await cachedStick({
  manifest: join(
    new URL("..", import.meta.url).pathname,
    "test/fixtures/manifests/good/small.toml",
  ),
  releaseDir: await cachedRelease({ version: "1.0.0" }),
  append: ["liken.shell=1"],
});
// Medians of 3 of each command, in a stick booted with `disks` beside it.
async function inStick(disks: VmDisk[], commands: readonly string[]): Promise<number[]> {
  try {
    const vm = await startVm({ stick, disks });
    await vm.waitFor(/a shell follows/, 240_000);
    // The report waits for the drivers the root loads at boot: timed once they are in.
    await vm.waitFor(/drivers loaded/, 120_000);
    await waitForShell(vm);
    const medians: number[] = [];
    for (const command of commands) {
      const times: number[] = [];
      for (let i = 0; i < 3; i++) {
        const line = await shell(vm, `time ${command} > /dev/null`, /^real\s/, 180_000);
        const [, m, sec] = /real\s+(?:(\d+)m\s*)?([\d.]+)s?/.exec(line) ?? [];
        times.push((Number(m ?? 0) * 60 + Number(sec)) * 1000);
      }
      medians.push(times.sort((a, b) => a - b)[1] as number);
    }
    return medians;
  } finally {
    await stopAllVms();
  }
}

const [guestReport = 0, guestNode = 0] = await inStick(
  [],
  ["liken-stick hwreport --json", "liken-stick --help"],
);
console.log(`inside the stick (QEMU TCG), medians of 3:`);
console.log(
  `  hwreport --json        ${ms(guestReport)}   under 1 s: ${guestReport < 1000 ? "yes" : "no"}`,
);
console.log(`  liken-stick --help     ${ms(guestNode)}   (Node.js and the bundle starting)`);
// A machine with a disk: the report reads it as install would (docs/disks.md, What is read).
const blank = join(await mkdtemp(join(tmpdir(), "liken-bench-hwreport-")), "blank.img");
await writeFile(blank, "");
await truncate(blank, 8 * 1024 ** 3);
const [withDisk = 0] = await inStick(
  [{ path: blank, bus: "virtio" }],
  ["liken-stick hwreport --json"],
);
await rm(dirname(blank), { recursive: true, force: true });
console.log(`  with a blank 8 GiB virtio disk: hwreport --json ${ms(withDisk)}`);
