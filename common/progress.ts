// Progress on long work (release, image, netboot, the first download of the pinned inputs):
// what is being done and how much is left. It goes to stderr, so that stdout (--json) stays
// clean. On a terminal the current step's line is drawn again as it moves, with a bar; in a
// log (a pipe, CI) each step is one line, and a long step adds a line every few seconds
// with what is done, so a log shows the work alive without a line per package.
import { formatSizeShort } from "./size.ts";

/** What a step counts: bytes (a download) or items (packages unpacked). */
export type ProgressUnit = "bytes" | "items";

/** Which step of how many: `[3/6]`. */
export interface StepPlace {
  readonly index: number;
  readonly count: number;
}

export interface Progress {
  /** Work `what` begins, ending the step before it; `place` when the caller counts steps. */
  step(what: string, place?: StepPlace): void;
  /** How much of the current step is done. */
  amount(done: number, total: number, unit: ProgressUnit): void;
  /** The work is over (a terminal's line is ended). */
  end(): void;
}

/** For work nobody watches: the build cache's own callers, the tests' builds. */
export const NO_PROGRESS: Progress = { step() {}, amount() {}, end() {} };

/** Numbers the steps of one piece of work: `const step = numberedSteps(p, 5); step("...")`. */
export function numberedSteps(progress: Progress, count: number): (what: string) => void {
  let index = 0;
  return (what) => {
    index = Math.min(index + 1, count);
    progress.step(what, { index, count });
  };
}

/** `40 MiB of 139 MiB`, `12 of 95`. */
export function formatAmount(done: number, total: number, unit: ProgressUnit): string {
  return unit === "bytes"
    ? `${formatSizeShort(done)} of ${formatSizeShort(total)}`
    : `${done} of ${total}`;
}

/** A log's line for a step under way: `...: 40 MiB of 139 MiB done`. */
export function amountLine(step: string, done: number, total: number, unit: ProgressUnit): string {
  return `${step}: ${formatAmount(done, total, unit)} done`;
}

const BAR_WIDTH = 10;

/** `[####------]`: the share done, in BAR_WIDTH cells. */
export function formatBar(done: number, total: number): string {
  const share = total > 0 ? Math.min(Math.max(done / total, 0), 1) : 0;
  const filled = Math.round(share * BAR_WIDTH);
  return `[${"#".repeat(filled)}${"-".repeat(BAR_WIDTH - filled)}]`;
}

/**
 * A terminal's live line: the step, its bar and amount, within `columns` so that it can be
 * drawn again in place. Where it does not fit, the label goes first, then the end of the
 * step's words; never the amount, which is what a person looks at.
 */
export function barLine(
  label: string,
  body: string,
  amount: { done: number; total: number; unit: ProgressUnit } | undefined,
  columns: number,
): string {
  const tail = amount
    ? ` ${formatBar(amount.done, amount.total)} ${formatAmount(amount.done, amount.total, amount.unit)}`
    : "";
  const room = Math.max(columns - 1 - tail.length, 10);
  const full = `${label}: ${body}`;
  if (full.length <= room) return `${full}${tail}`;
  const head = body.length > room ? `${body.slice(0, room - 3)}...` : body;
  return `${head}${tail}`;
}

export interface ProgressOutput {
  readonly write: (text: string) => void;
  /** A terminal's width: the line is drawn again in place. Absent: a log, whole lines only. */
  readonly columns?: number;
  /** Milliseconds, for the pace of redraws and log lines (Date.now). */
  readonly now?: () => number;
}

/** How often a terminal's line is drawn again, and a log gets a line for a long step. */
const REDRAW_MS = 100;
const LOG_EVERY_MS = 5_000;

/** Progress written to `output`, each line led by `label` (`liken-stick release`). */
export function createProgress(label: string, output: ProgressOutput): Progress {
  const now = output.now ?? Date.now;
  const columns = output.columns;
  let body: string | undefined; // the current step: `[3/6] building the root`
  let open = false; // a terminal's live line, drawn without its newline
  let lastWrite = 0;
  const draw = (text: string) => {
    output.write(`\r\x1b[K${text}`);
    open = true;
  };
  // A finished step stays on the terminal whole (it may wrap: it is not drawn again).
  const close = () => {
    if (open && body !== undefined) output.write(`\r\x1b[K${label}: ${body}\n`);
    open = false;
  };
  return {
    step(what, place) {
      close();
      body = place ? `[${place.index}/${place.count}] ${what}` : what;
      lastWrite = now();
      if (columns === undefined) output.write(`${label}: ${body}\n`);
      else draw(barLine(label, body, undefined, columns));
    },
    amount(done, total, unit) {
      if (body === undefined) return;
      const at = now();
      if (columns !== undefined) {
        if (at - lastWrite < REDRAW_MS && done < total) return;
        lastWrite = at;
        draw(barLine(label, body, { done, total, unit }, columns));
        return;
      }
      if (at - lastWrite < LOG_EVERY_MS || done >= total) return;
      lastWrite = at;
      output.write(`${amountLine(`${label}: ${body}`, done, total, unit)}\n`);
    },
    end() {
      close();
      body = undefined;
    },
  };
}
