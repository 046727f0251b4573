// The part of blessed the menu uses: its Program (terminfo, escape sequences, key parsing),
// imported alone because blessed's index pulls in widgets (term.js, pty.js) that do not
// bundle. @types/blessed types the index only, and types `tput` as a string.
declare module "blessed/lib/program.js" {
  import type { EventEmitter } from "node:events";
  import type { Readable, Writable } from "node:stream";

  interface ProgramOptions {
    readonly input?: Readable;
    readonly output?: Writable;
    readonly terminal?: string;
    /** false: no terminfo, plain ANSI sequences. */
    readonly tput?: boolean;
    /** Coordinates from 0. */
    readonly zero?: boolean;
    /** Collect writes and send them once per tick. */
    readonly buffer?: boolean;
  }

  class Program extends EventEmitter {
    constructor(options: ProgramOptions);
    cols: number;
    rows: number;
    cup(row: number, col: number): unknown;
    el(): unknown;
    print(text: string): unknown;
    clear(): unknown;
    flush(): void;
    alternateBuffer(): unknown;
    normalBuffer(): unknown;
    hideCursor(): unknown;
    showCursor(): unknown;
    destroy(): void;
  }

  export = Program;
}
