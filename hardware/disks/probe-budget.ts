// What one disk may cost the probe, whatever its bytes say (docs/disks.md, "Untrusted
// bytes"). The tables are judged before a tool reads them (formats/gpt.ts, formats/mbr.ts),
// so a damaged disk costs what a sane one does; the budget is the floor under what no
// judgement foresaw: a tool still running when it is spent is stopped, and the disk reads
// `probe-failed:<tool>:timeout`, never blank.
import type { DiskFacts } from "./types.ts";

// The clock is the wall's: a probe shares the cores with everything else the machine runs,
// and the tools it starts wait for them. Budgets of 2 s (a file) and 10 s (a device) were
// spent by sane disks on two busy cores (a test suite beside the probe, a guest under
// emulation beside another), which read them as foreign: a wrong answer about a sane disk
// costs the operator more than a damaged disk's wait does.

/** An image file: the probe reads about 22 MiB of it and starts a few tools. */
export const FILE_BUDGET_MS = 10_000;
/**
 * A block device: about 55 seeks and 22 MiB on a spinning disk (under a second), with room
 * for a disk behind a slow bridge, a BMC's virtual media, or a guest under emulation.
 */
export const DEVICE_BUDGET_MS = 20_000;

export function probeBudgetMs(facts: Pick<DiskFacts, "kind">): number {
  return facts.kind === "file" ? FILE_BUDGET_MS : DEVICE_BUDGET_MS;
}

/** The time a disk's probe has left: every tool it starts is stopped when it is spent. */
export class Budget {
  private readonly deadline: number;
  /** `ms` is the disk's whole budget: tools stop a tenth before it, to be killed and read in time. */
  constructor(ms: number) {
    this.deadline = Date.now() + ms * 0.9;
  }
  get leftMs(): number {
    return this.deadline - Date.now();
  }
  /** `work`, or "timeout" when the budget ends first (the work goes on unawaited: a read cannot be stopped). */
  async within<T>(work: Promise<T>): Promise<T | "timeout"> {
    let timer: NodeJS.Timeout | undefined;
    const spent = new Promise<"timeout">((resolve) => {
      timer = setTimeout(() => resolve("timeout"), Math.max(0, this.leftMs));
    });
    try {
      return await Promise.race([work, spent]);
    } finally {
      clearTimeout(timer);
    }
  }
}
