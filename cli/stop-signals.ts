// Ctrl-C and its kin while a verb writes a disk. The first SIGINT, SIGTERM or SIGHUP asks
// the work to stop where the same command, run again, finishes it (an AbortSignal whose
// reason is the signal's name); a second one ends the process at once, as if no one
// listened. Either way the exit code is the shell's for that signal: 128 and its number.
import { constants } from "node:os";

const STOP_SIGNALS = ["SIGINT", "SIGTERM", "SIGHUP"] as const;

export interface StopListener {
  /** Aborted at the first signal, with the signal's name as its reason. */
  readonly signal: AbortSignal;
  /** The exit code for the signal that came: 130 for SIGINT, 143 for SIGTERM, 129 for SIGHUP. */
  exitCode(): number;
  /** Stops listening: the signals kill the process again. */
  dispose(): void;
}

export function listenForStop(): StopListener {
  const controller = new AbortController();
  const onSignal = (signal: NodeJS.Signals) => {
    if (controller.signal.aborted) process.exit(exitCodeOf(signal));
    controller.abort(signal);
  };
  for (const s of STOP_SIGNALS) process.on(s, onSignal);
  return {
    signal: controller.signal,
    exitCode: () => exitCodeOf(controller.signal.reason as NodeJS.Signals),
    dispose: () => {
      for (const s of STOP_SIGNALS) process.off(s, onSignal);
    },
  };
}

function exitCodeOf(signal: NodeJS.Signals): number {
  return 128 + constants.signals[signal];
}
