// The shape rules of docs/design.md section 11 that no linter keeps, read from the code
// with the TypeScript compiler (test/code-shape.ts).
import { describe, expect, it } from "vitest";
import { functionLengths, productionFiles, sourceFiles, swallowedErrors } from "./code-shape.ts";

/**
 * Top-level flows that read as a table of contents: each once mixed levels in one long
 * body (issue 40), and stays its named steps.
 */
const STEPS = {
  "agent/main.ts:main": "the boot agent: the steps of docs/design.md section 5",
  "hwreport/report.ts:buildReport": "the report: read the machine, judge disks and NICs, plan",
  "menu/app.ts:runMenu": "the menu: read the machine, then a MenuRun paints and dispatches",
  "installer/plan/plan-layout.ts:planLayout": "the planner: judge, pool, system disk, roles",
  "installer/plan/plan-layout.ts:pickSystemDisks":
    "the system disk (or a mirror's two): resumed, selected, the first that hold and boot it, or why none",
  "installer/unattended/run.ts:runUnattended":
    "the stick's unattended flow: the machine, the install, the disks, the report",
  "testing/qemu/args.ts:qemuArgs": "a test machine's QEMU command line, one part per device",
};
const STEP_LINES = 60;

/** What any other function may grow to before it is split. */
const FUNCTION_LINES = 100;
/** The functions longer than FUNCTION_LINES, and why each may be. */
const LONG_FUNCTIONS: Record<string, string> = {
  "image-build/release/init-script.ts:releaseInit":
    "a busybox script in a template string: its length is the script's, which shellcheck reads",
  "image-build/stick/root-init.ts:stickRootInit":
    "a busybox script in a template string: its length is the script's, which shellcheck reads",
};

/**
 * How many swallowed errors each file may still hold without a comment. A count may only
 * shrink; a file leaves this list when its last swallow says why.
 */
const UNEXPLAINED_SWALLOWS: Record<string, number> = {};

const production = productionFiles();
const lengths = production.flatMap(functionLengths);

describe("the shape of the code", () => {
  it.each(Object.keys(STEPS))(`%s is its named steps, each at most ${STEP_LINES} lines`, (id) => {
    const file = id.slice(0, id.indexOf(":"));
    const found = functionLengths(file).find((f) => f.id === id);
    expect(found, `${id} is gone: move its entry in STEPS to where it went`).toBeDefined();
    expect(found?.lines).toBeLessThanOrEqual(STEP_LINES);
  });

  it(`no production function is longer than ${FUNCTION_LINES} lines but those named`, () => {
    const long = lengths.filter((f) => f.lines > FUNCTION_LINES && !(f.id in LONG_FUNCTIONS));
    expect(long.map((f) => `${f.id}: ${f.lines} lines`)).toEqual([]);
  });

  it("each long function named is still long: the list holds only what needs it", () => {
    const stillLong = new Set(lengths.filter((f) => f.lines > FUNCTION_LINES).map((f) => f.id));
    expect(Object.keys(LONG_FUNCTIONS).filter((id) => !stillLong.has(id))).toEqual([]);
  });

  it("each swallowed error in production code says why in a comment", () => {
    const unexplained = production.flatMap(swallowedErrors).filter((s) => !s.explained);
    const count = new Map<string, number>();
    for (const s of unexplained) {
      const file = s.at.slice(0, s.at.lastIndexOf(":"));
      count.set(file, (count.get(file) ?? 0) + 1);
    }
    const over = unexplained.filter((s) => {
      const file = s.at.slice(0, s.at.lastIndexOf(":"));
      return (count.get(file) ?? 0) > (UNEXPLAINED_SWALLOWS[file] ?? 0);
    });
    expect(over.map((s) => s.at)).toEqual([]);
  });

  it("finds what it looks for: the scanner sees swallows and long functions", () => {
    expect(production.flatMap(swallowedErrors).length).toBeGreaterThan(50);
    expect(sourceFiles("agent")).toContain("agent/main.ts");
  });
});
