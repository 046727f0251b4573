// A shell on the guest's serial console (the stick's `liken.shell=1`, or the shell a failed
// install leaves): type a command, wait for the line that says it is done.
import type { Vm } from "./harness.ts";

/** Types `command` and resolves with the next console line matching `done`. */
export async function shell(
  vm: Vm,
  command: string,
  done: RegExp,
  timeoutMs = 60_000,
): Promise<string> {
  await vm.type(`${command}\n`);
  return vm.waitFor(done, timeoutMs);
}

/** The shell starts in the background: asks until it answers (about a minute at most). */
export async function waitForShell(vm: Vm): Promise<void> {
  for (let i = 0; ; i++) {
    try {
      await shell(vm, "echo ready-$((20+22))", /^ready-42$/, 5_000);
      return;
    } catch (error) {
      if (i === 10) throw error;
    }
  }
}
