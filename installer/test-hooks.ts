// Fault injection for the install tests: SIGKILL at a named step, or after N bytes of the
// slot write. Only the test bundle defines __LIKEN_TEST_HOOKS__ (scripts/bundle.mjs); in
// every other build the checks fold to nothing.
declare const __LIKEN_TEST_HOOKS__: boolean | undefined;

const enabled = typeof __LIKEN_TEST_HOOKS__ !== "undefined" && __LIKEN_TEST_HOOKS__;

/** Dies here when LIKEN_TEST_KILL_AT names this step. */
export function killPoint(step: string): void {
  if (enabled && process.env.LIKEN_TEST_KILL_AT === step) process.kill(process.pid, "SIGKILL");
}

/** Dies once `written` passes LIKEN_TEST_KILL_AFTER_BYTES. */
export function killAfterBytes(written: number): void {
  if (!enabled) return;
  const limit = Number(process.env.LIKEN_TEST_KILL_AFTER_BYTES ?? Number.NaN);
  if (written >= limit) process.kill(process.pid, "SIGKILL");
}
