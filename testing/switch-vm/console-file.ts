// A switch VM's serial console as QEMU writes it to a file: whole lines, carriage returns
// gone, read on demand. waitFor() moves a cursor past each line it returns, so the next
// wait looks only at what came after, as the QEMU harness's console does.
import { readFile } from "node:fs/promises";

const POLL_MS = 100;
export const TAIL_LINES = 30;

export class ConsoleFile {
  readonly path: string;
  #cursor = 0;

  constructor(path: string) {
    this.path = path;
  }

  /** Every whole line so far. */
  async lines(): Promise<string[]> {
    // Before QEMU has written anything the file may not exist yet: no lines.
    const text = await readFile(this.path, "utf8").catch(() => "");
    const whole = text.slice(0, text.lastIndexOf("\n") + 1).replaceAll("\r", "");
    return whole === "" ? [] : whole.slice(0, -1).split("\n");
  }

  async tail(count = TAIL_LINES): Promise<string> {
    return (await this.lines()).slice(-count).join("\n");
  }

  /**
   * The first line after the last one returned that contains `pattern` (a string) or
   * matches it (a RegExp). Throws after `timeoutMs`, or when `ended()` says why the VM is
   * gone, with the console's last lines.
   */
  async waitFor(
    pattern: string | RegExp,
    timeoutMs: number,
    ended: () => string | undefined,
  ): Promise<string> {
    const deadline = Date.now() + timeoutMs;
    const matches = (line: string) =>
      typeof pattern === "string" ? line.includes(pattern) : pattern.test(line);
    for (;;) {
      const lines = await this.lines();
      const at = lines.findIndex((line, i) => i >= this.#cursor && matches(line));
      if (at >= 0) {
        this.#cursor = at + 1;
        return lines[at] as string;
      }
      const why = ended();
      const late = Date.now() >= deadline;
      if (why !== undefined || late) {
        const what = why ?? `no console line ${String(pattern)} within ${timeoutMs / 1000} s`;
        throw new Error(`${what}\n--- ${this.path}: the last lines ---\n${await this.tail()}`);
      }
      await new Promise((resolve) => setTimeout(resolve, POLL_MS));
    }
  }
}
