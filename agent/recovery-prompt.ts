// The recovery key typed on a console: the screen's or the serial port's, whichever a
// person types on first. Nothing typed is echoed: a serial console's output is often
// logged (a BMC's serial-over-LAN, a console server), and the key stays valid after use.
import { openSync } from "node:fs";
import { ReadStream } from "node:tty";

const CONSOLES = ["/dev/ttyS0", "/dev/tty0"];
const ENTER = new Set([0x0d, 0x0a]);
const ERASE = new Set([0x7f, 0x08]);
const KILL_LINE = 0x15; // Ctrl-U

/** The next line typed on any console; each keypress shows as nothing, Enter as a new line. */
export function readSecretLine(onEnter: () => void): Promise<string> {
  return new Promise((resolve) => {
    const streams: ReadStream[] = [];
    const done = (line: string) => {
      for (const s of streams) {
        s.setRawMode(false);
        s.destroy();
      }
      onEnter();
      resolve(line);
    };
    for (const path of CONSOLES) {
      let fd: number;
      try {
        fd = openSync(path, "r");
      } catch {
        continue; // no such console on this machine
      }
      const stream = new ReadStream(fd);
      stream.setRawMode(true);
      let typed = "";
      stream.on("data", (chunk: Buffer) => {
        for (const byte of chunk) {
          if (ENTER.has(byte)) return done(typed);
          if (ERASE.has(byte)) typed = typed.slice(0, -1);
          else if (byte === KILL_LINE) typed = "";
          else if (byte >= 0x20 && byte < 0x7f) typed += String.fromCharCode(byte);
        }
      });
      stream.on("error", () => undefined);
      streams.push(stream);
    }
  });
}
