// The recovery key typed on a console: the screen's or the serial port's, whichever a
// person types on first. Nothing typed is echoed: a serial console's output is often
// logged (a BMC's serial-over-LAN, a console server), and the key stays valid after use.
// The consoles go raw before the first prompt and stay raw until the last answer, so no
// keystroke ever meets the echoing line discipline.
import { closeSync, openSync } from "node:fs";
import { isatty, ReadStream } from "node:tty";
import { SERIAL_CONSOLES } from "../common/arch.ts";

const CONSOLES = [...SERIAL_CONSOLES.map((c) => `/dev/${c}`), "/dev/tty0"];
const ENTER = new Set([0x0d, 0x0a]);
const ERASE = new Set([0x7f, 0x08]);
const KILL_LINE = 0x15; // Ctrl-U

/** The consoles a person may type on, raw and silent until close(). */
export class SecretConsoles {
  readonly #streams: ReadStream[] = [];
  readonly #lines: string[] = [];
  #waiting: ((line: string) => void) | undefined;

  constructor() {
    for (const path of CONSOLES) {
      let fd: number;
      try {
        fd = openSync(path, "r");
      } catch {
        continue; // no such console on this machine
      }
      // Not a terminal (a file left where a device is absent): nobody types there.
      if (!isatty(fd)) {
        closeSync(fd);
        continue;
      }
      const stream = new ReadStream(fd);
      stream.setRawMode(true);
      let typed = "";
      stream.on("data", (chunk: Buffer) => {
        for (const byte of chunk) {
          if (ENTER.has(byte)) {
            this.#line(typed);
            typed = "";
          } else if (ERASE.has(byte)) typed = typed.slice(0, -1);
          else if (byte === KILL_LINE) typed = "";
          else if (byte >= 0x20 && byte < 0x7f) typed += String.fromCharCode(byte);
        }
      });
      // A console that fails is one fewer to type on; the others still read.
      stream.on("error", () => undefined);
      this.#streams.push(stream);
    }
  }

  /** The next line typed on any console (never resolves on a machine with none). */
  readLine(): Promise<string> {
    const ready = this.#lines.shift();
    if (ready !== undefined) return Promise.resolve(ready);
    return new Promise((resolve) => {
      this.#waiting = resolve;
    });
  }

  close(): void {
    for (const s of this.#streams) {
      s.setRawMode(false);
      s.destroy();
    }
  }

  #line(line: string): void {
    const waiting = this.#waiting;
    this.#waiting = undefined;
    if (waiting) waiting(line);
    else this.#lines.push(line);
  }
}
