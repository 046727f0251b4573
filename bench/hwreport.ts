// Times `liken-stick hwreport --json` against `inxi -F` and `lshw -json` on this machine, in
// the same run, and prints both ratios (DESIGN.md section 10: at most half the time of
// inxi -F). systeminformation's getAllData is timed beside them, in this process.
// Run: npx tsx bench/hwreport.ts (inxi and lshw: apt-get install inxi lshw)
import si from "systeminformation";
import { bundle } from "../scripts/bundle.mjs";
import { run } from "../tools/exec.ts";

const RUNS = 5;
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

await bundle();
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
