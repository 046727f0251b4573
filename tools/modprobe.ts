// modprobe(8), busybox's in the release's root (it reads modules.dep, modules.alias and
// /etc/modprobe.d like kmod's): loads a declared module with the operator's parameters, and
// the drivers of the devices present by their modaliases.
import { CommandError, run } from "./exec.ts";

export type LoadResult = { readonly ok: true } | { readonly ok: false; readonly error: string };

/** `modprobe NAME WORD...`: the words are the parameters, one argument each. */
export async function loadModule(name: string, parameters: readonly string[]): Promise<LoadResult> {
  try {
    await run("modprobe", [name, ...parameters], { timeoutMs: 60_000 });
    return { ok: true };
  } catch (error) {
    const tail = error instanceof CommandError ? error.stderrTail.trim() : "";
    return { ok: false, error: tail.split("\n").pop() || (error as Error).message.split("\n")[0]! };
  }
}

/**
 * Every module whose alias matches one of `modaliases` (`modprobe -q -a`): a modalias no
 * module claims is not an error, and one driver that fails to load stops no other.
 */
export async function loadByModalias(modaliases: readonly string[]): Promise<void> {
  if (modaliases.length === 0) return;
  await run("modprobe", ["-q", "-a", ...modaliases], {
    timeoutMs: 120_000,
    okExitCodes: Array.from({ length: 255 }, (_, i) => i + 1),
  });
}
