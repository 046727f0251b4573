// What a failed step of a test with several VMs says: its own error, then every VM's last
// console lines, since the switch's view and the machine's are both part of why.

/** Anything with a name and a console tail: a SwitchVm, or a harness VM wrapped as one. */
export interface NamedConsole {
  readonly name: string;
  tail(lines?: number): string | Promise<string>;
}

/** Runs `step`; when it throws, the error gains each console's last lines. */
export async function withConsoles<T>(
  consoles: readonly NamedConsole[],
  step: () => Promise<T>,
): Promise<T> {
  try {
    return await step();
  } catch (error) {
    const tails = await Promise.all(
      consoles.map(async (c) => `--- ${c.name}: the console's last lines ---\n${await c.tail(20)}`),
    );
    const message = error instanceof Error ? error.message : String(error);
    throw new Error(`${message}\n${tails.join("\n")}`, { cause: error });
  }
}
