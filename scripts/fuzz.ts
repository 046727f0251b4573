// `npm run fuzz`: the fuzz tests (every `*.fuzz.test.ts`) with many more cases than the
// suite's, from a fresh seed it prints first, so a failure can be run again exactly
// (test/fuzz.ts reads LIKEN_FUZZ_RUNS and LIKEN_FUZZ_SEED).
import { randomInt } from "node:crypto";
import { start } from "../tools/exec.ts";

const DEFAULT_RUNS = 20_000;

const given = process.env.LIKEN_FUZZ_SEED;
const seed = given && Number.isInteger(Number(given)) ? Number(given) : randomInt(2 ** 31 - 1);
const runs = process.env.LIKEN_FUZZ_RUNS || String(DEFAULT_RUNS);

console.log(`fuzz: seed ${seed}, ${runs} runs per property`);
console.log(`fuzz: to run it again: LIKEN_FUZZ_SEED=${seed} LIKEN_FUZZ_RUNS=${runs} npm run fuzz`);

// The unit tier's minute per test is for the suite's few hundred runs; 60 ms a run keeps a
// bound (a reader that loops still fails) that thousands of file reads or signature checks fit.
const timeout = Math.max(60_000, Number(runs) * 60);

const vitest = await start(
  "npx",
  ["vitest", "run", "--project", "unit", `--testTimeout=${timeout}`, "fuzz"],
  {
    env: { LIKEN_FUZZ_SEED: String(seed), LIKEN_FUZZ_RUNS: runs },
    stdout: "inherit",
    stderr: "inherit",
  },
);
const { exitCode, signal } = await vitest.exited;
if (exitCode !== 0)
  console.log(
    `fuzz: failed with seed ${seed}: LIKEN_FUZZ_SEED=${seed} LIKEN_FUZZ_RUNS=${runs} npm run fuzz`,
  );
process.exit(exitCode ?? (signal ? 1 : 0));
