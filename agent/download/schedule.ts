// When the running machine tries a download (docs/troubleshoot.md, The machine does not move
// to the new release): a failed download waits 10 s before its first retry, the wait
// doubles after each failure up to 2 min, and a change of the target starts the new
// download at once. A state machine over plain values, so the agent's loop only sleeps
// until `nextAt` and every wait is tested without a clock. Pure.

export const FIRST_RETRY_MS = 10_000;
export const LONGEST_RETRY_MS = 120_000;

export interface Schedule {
  /** What is to be fetched (the agent's key: version, url and digest); null: nothing. */
  readonly target: string | null;
  /** Attempts begun for this target: 1 during the first. */
  readonly attempts: number;
  /** Failures of this target since it was set; the Nth failure is followed by retry N. */
  readonly failures: number;
  /** Why the last attempt failed, in a few words ("no bytes for 60 s"); null before any. */
  readonly lastFailure: string | null;
  /**
   * When to begin the next attempt, in milliseconds since the epoch; null while an attempt
   * runs, after the target was fetched or given up, and without a target.
   */
  readonly nextAt: number | null;
  /** The target was fetched and verified: nothing more to do until it changes. */
  readonly done: boolean;
}

export type ScheduleEvent =
  /** The spec names this target (or null: none). The same target again changes nothing. */
  | { readonly kind: "target"; readonly target: string | null }
  /** An attempt begins (the agent calls it at or after nextAt). */
  | { readonly kind: "begin" }
  /** The attempt failed and is worth another: a retry after the backoff. */
  | { readonly kind: "failed"; readonly reason: string }
  /** The attempt failed and another would fail alike (a digest that does not match): none until the target changes. */
  | { readonly kind: "gaveUp"; readonly reason: string }
  /** The attempt fetched and verified the whole release. */
  | { readonly kind: "done" };

export const IDLE: Schedule = {
  target: null,
  attempts: 0,
  failures: 0,
  lastFailure: null,
  nextAt: null,
  done: false,
};

/** The wait before retry `n` (1 is the first): 10, 20, 40, 80, 120, 120... seconds. */
export function retryDelayMs(n: number): number {
  return Math.min(FIRST_RETRY_MS * 2 ** Math.max(0, n - 1), LONGEST_RETRY_MS);
}

/** The schedule after `event` at `now` (milliseconds since the epoch). */
export function nextAttempt(state: Schedule, event: ScheduleEvent, now: number): Schedule {
  switch (event.kind) {
    case "target":
      if (event.target === state.target) return state;
      // A new target starts at once: the old one's failures say nothing about it.
      return { ...IDLE, target: event.target, nextAt: event.target === null ? null : now };
    case "begin":
      if (state.target === null) return state;
      return { ...state, attempts: state.attempts + 1, nextAt: null };
    case "failed": {
      if (state.target === null) return state;
      const failures = state.failures + 1;
      return {
        ...state,
        failures,
        lastFailure: event.reason,
        nextAt: now + retryDelayMs(failures),
      };
    }
    case "gaveUp":
      if (state.target === null) return state;
      return { ...state, failures: state.failures + 1, lastFailure: event.reason, nextAt: null };
    case "done":
      if (state.target === null) return state;
      return { ...state, nextAt: null, done: true };
  }
}

/** Milliseconds until the next attempt is due (0: now); null when none is planned. */
export function waitMs(state: Schedule, now: number): number | null {
  return state.nextAt === null ? null : Math.max(0, state.nextAt - now);
}
