// A vitest reporter that ends the run with one line: how long each tier took, so a suite
// that grows shows where. The tiers are vitest.config.ts's projects, run one after the
// other (sequence.groupOrder), so each time is the wall time from the tier's first file to
// its last. Then the counts, as the plain `N passed, N failed` line that CI reads.
import type { Reporter, TestModule } from "vitest/node";

interface Span {
  first: number;
  last: number;
  files: number;
}

export default class TierSummary implements Reporter {
  readonly #spans = new Map<string, Span>();
  readonly #started = Date.now();

  onTestModuleStart(module: TestModule): void {
    const name = module.project.name || "tests";
    const span = this.#spans.get(name);
    const now = Date.now();
    if (span) span.first = Math.min(span.first, now);
    else this.#spans.set(name, { first: now, last: now, files: 0 });
  }

  onTestModuleEnd(module: TestModule): void {
    const span = this.#spans.get(module.project.name || "tests");
    if (!span) return;
    span.last = Math.max(span.last, Date.now());
    span.files++;
  }

  onTestRunEnd(modules: ReadonlyArray<TestModule>): void {
    let passed = 0;
    let failed = 0;
    let skipped = 0;
    for (const module of modules) {
      for (const test of module.children.allTests()) {
        const state = test.result().state;
        if (state === "passed") passed++;
        else if (state === "failed") failed++;
        else skipped++;
      }
    }
    const tiers = [...this.#spans.entries()].map(
      ([name, s]) => `${name} ${formatDuration(s.last - s.first)} (${s.files} files)`,
    );
    const total = formatDuration(Date.now() - this.#started);
    process.stdout.write(`\ntiers: ${tiers.join(", ")}; total ${total}\n`);
    // The plain closing line any CI reads.
    process.stdout.write(`tests: ${passed} passed, ${failed} failed, ${skipped} skipped\n`);
  }
}

/** 850 ms, 42 s, 3 min 05 s. */
export function formatDuration(ms: number): string {
  if (ms < 1000) return `${Math.round(ms)} ms`;
  const seconds = Math.round(ms / 1000);
  if (seconds < 60) return `${seconds} s`;
  return `${Math.floor(seconds / 60)} min ${String(seconds % 60).padStart(2, "0")} s`;
}
