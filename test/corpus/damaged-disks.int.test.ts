// Issue 46: a disk's bytes are untrusted input. `disks`, `inspect` and the boot agent's
// crash-journal read run on every disk of the damaged-disk corpus (damaged-disks.ts) and
// must answer within the probe's budget for an image file: never blank, never a crash or a
// stack trace, an implausible table named as `partition-table:implausible`.
//
// `disks` is timed twice: one run of the command over every disk (start-up included, the
// disks probed four at a time) divided by their count, and each disk alone through
// inventoryDisks(), which counts no process start-up. inspect is timed as an operator runs
// it, one command per disk, less the command's start-up; the journal read as the agent
// calls it.
import { mkdtemp, open, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { readJournal } from "../../formats/journal-io.ts";
import { type Disk, inventoryDisks } from "../../hardware/disks/index.ts";
import { FILE_BUDGET_MS } from "../../hardware/disks/probe-budget.ts";
import { cli } from "../cli.ts";
import {
  DAMAGED_DISKS,
  type DamagedCorpus,
  type DamagedDisk,
  imagePath,
  makeDamagedDisks,
} from "./damaged-disks.ts";

const IMPLAUSIBLE = "partition-table:implausible";
// Room for a disk that takes far longer than its budget to fail on its time, not on a timeout.
const ONE_DISK_TIMEOUT = 30 * FILE_BUDGET_MS;
const INSTALLED = DAMAGED_DISKS.filter((d) => d.journalValid !== undefined);

let dir: string | undefined;
let corpus: DamagedCorpus;
/** How long the command takes to start and end doing nothing: not the disk's cost. */
let startUpMs = 0;
const path = (disk: DamagedDisk) => imagePath(corpus, disk);

async function timed<T>(work: () => Promise<T>): Promise<{ result: T; ms: number }> {
  const started = performance.now();
  const result = await work();
  return { result, ms: performance.now() - started };
}

function escaped(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "liken-damaged-disks-"));
  corpus = await makeDamagedDisks(dir);
  // The first inventory in a process loads what the probe starts programs with: not a disk's cost.
  await inventoryDisks({ paths: [path(DAMAGED_DISKS[0] as DamagedDisk)] });
  const runs = [];
  for (let i = 0; i < 3; i++) runs.push((await timed(() => cli(["--version"]))).ms);
  startUpMs = Math.min(...runs);
}, 120_000);

afterAll(async () => {
  // The folder, not the corpus: a build that failed part way leaves its disks there too.
  if (dir) await rm(dir, { recursive: true, force: true });
});

describe("disks on the damaged disks", () => {
  it(
    "reads them all in one run: one JSON document, none blank, within the budget per disk",
    async () => {
      const paths = DAMAGED_DISKS.map(path);
      const { result: r, ms } = await timed(() => cli(["disks", "--json", ...paths]));
      expect(r.code, r.stderr).toBe(0);
      const found = JSON.parse(r.stdout) as Disk[];
      expect(found.map((d) => d.path)).toEqual(paths);
      for (const d of found) expect.soft(d.verdict, d.path).not.toBe("blank");
      expect(ms / paths.length).toBeLessThanOrEqual(FILE_BUDGET_MS);
    },
    DAMAGED_DISKS.length * ONE_DISK_TIMEOUT,
  );

  it.each(DAMAGED_DISKS)(
    "$name: its verdict and reasons, each disk alone within the budget",
    async (disk) => {
      const { result, ms } = await timed(() => inventoryDisks({ paths: [path(disk)] }));
      const [found] = result;
      expect(found?.verdict).not.toBe("blank");
      expect(disk.verdict ? [disk.verdict] : ["foreign", "liken"]).toContain(found?.verdict);
      const reasons = found?.reasons ?? [];
      expect(reasons).toEqual(expect.arrayContaining([...disk.reasons]));
      if (disk.implausible === true) {
        expect(reasons).toContain(IMPLAUSIBLE);
        // Foreign, unless its claim holds through the install's own backup GPT
        // (docs/disks.md, "Untrusted bytes").
        expect(found?.verdict).toBe(disk.verdict ?? "foreign");
      }
      if (disk.implausible === false) expect(reasons).not.toContain(IMPLAUSIBLE);
      expect(ms).toBeLessThanOrEqual(FILE_BUDGET_MS);
    },
    ONE_DISK_TIMEOUT,
  );
});

describe("inspect on the damaged disks", () => {
  it.each(DAMAGED_DISKS)(
    "$name: read with its problems named, or refused in one line, within the budget",
    async (disk) => {
      const p = path(disk);
      const { result: r, ms } = await timed(() => cli(["inspect", "--json", p]));
      // A crash prints the error's stack, and the JSON error reason InternalError.
      expect(r.stderr).not.toMatch(/\n\s+at /);
      expect(r.stdout).not.toContain("InternalError");
      const document = JSON.parse(r.stdout);
      if (disk.inspect === "reads") {
        expect(r.code, r.stderr).toBe(0);
        expect(r.stderr).toBe("");
        expect(document.claim).toMatchObject({ copies: expect.any(Number) });
        if (disk.problems?.length === 0) expect(document.problems).toEqual([]);
        for (const problem of disk.problems ?? [])
          expect(document.problems).toContainEqual(
            problem.endsWith("*")
              ? expect.stringMatching(`^${escaped(problem.slice(0, -1))}`)
              : problem,
          );
      } else {
        const hint = `liken-stick disks ${p} says what it holds`;
        expect(r.code).toBe(1);
        expect(r.stderr).toMatch(
          new RegExp(
            `^liken-stick inspect: ${escaped(p)} is not a liken disk: [^\\n]+ \\(${escaped(hint)}\\)\\n$`,
          ),
        );
        expect(document).toEqual({
          error: { kind: "refused", reason: "Refused", what: expect.any(String), hint },
        });
        if (disk.implausible) expect(document.error.what).toContain(IMPLAUSIBLE);
      }
      // The refusal probes the disk as `disks` does, which may spend its whole budget.
      expect(ms - startUpMs).toBeLessThanOrEqual(FILE_BUDGET_MS);
    },
    ONE_DISK_TIMEOUT,
  );
});

describe("the boot agent's crash-journal read on the damaged installs", () => {
  it.each(INSTALLED)(
    "$name: a journal or none, never an error, within the budget",
    async (disk) => {
      const handle = await open(path(disk), "r");
      try {
        const { start, size } = corpus.journal;
        const { result, ms } = await timed(() => readJournal(handle, start, size));
        expect(result !== undefined).toBe(disk.journalValid);
        expect(ms).toBeLessThanOrEqual(FILE_BUDGET_MS);
      } finally {
        await handle.close();
      }
    },
    ONE_DISK_TIMEOUT,
  );
});
