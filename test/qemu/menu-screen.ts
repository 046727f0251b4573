// The serial console as a person at a VT220 of 80x24 sees it: a small terminal emulator
// fed the raw bytes of the VM's first serial port (cursor moves, erases, scrolling, the
// pending wrap of the last column), which answers the size question the menu asks
// (ESC [ 6 n) as that terminal would. The menu's QEMU tests read the screen from it and
// type keys into it; nothing here knows about the menu.
import { cachedRelease, cachedStick } from "../../testing/cached-build.ts";
import type { Vm } from "./harness.ts";

/** The manifest of the menu tests' stick: its layout fits a 4 GiB disk. */
export const MENU_MANIFEST = "test/fixtures/manifests/good/small.toml";

/** The stick every menu test boots (built once, then shared through the build cache). */
export async function menuStick(): Promise<string> {
  const release = await cachedRelease({ version: "1.0.0" });
  return cachedStick({ manifest: MENU_MANIFEST, releaseDir: release });
}

export interface ScreenSize {
  readonly cols: number;
  readonly rows: number;
}

/** A VT100/VT220 screen: feed it what the host sends, read the screen's lines. */
export class VtScreen {
  readonly cols: number;
  readonly rows: number;
  #grid: string[][];
  #row = 0;
  #col = 0;
  /** The last column was written: the next printable character wraps first (DECAWM). */
  #pendingWrap = false;
  #saved = { row: 0, col: 0 };
  #top = 0;
  #bottom: number;
  #autowrap = true;
  #state: "text" | "esc" | "csi" | "osc" | "charset" = "text";
  #csi = "";
  readonly #replies: string[] = [];

  constructor(size: ScreenSize = { cols: 80, rows: 24 }) {
    this.cols = size.cols;
    this.rows = size.rows;
    this.#bottom = size.rows - 1;
    this.#grid = this.#blank();
  }

  /** What the terminal answers to the host (size reports), in order, once each. */
  takeReplies(): string[] {
    return this.#replies.splice(0);
  }

  /** The screen, one string per row, without trailing blanks. */
  lines(): string[] {
    return this.#grid.map((r) => r.join("").trimEnd());
  }

  /** The screen as text: its rows joined by newlines, trailing empty rows kept (exactly rows lines). */
  text(): string {
    return this.lines().join("\n");
  }

  get cursor(): { row: number; col: number } {
    return { row: this.#row, col: this.#col };
  }

  write(data: string): void {
    for (const ch of data) this.#byte(ch);
  }

  #blank(): string[][] {
    return Array.from({ length: this.rows }, () => this.#blankRow());
  }

  #blankRow(): string[] {
    return Array.from({ length: this.cols }, () => " ");
  }

  #byte(ch: string): void {
    const code = ch.codePointAt(0) ?? 0;
    switch (this.#state) {
      case "esc":
        this.#escape(ch);
        return;
      case "csi":
        if (code >= 0x40 && code <= 0x7e) {
          this.#state = "text";
          this.#control(this.#csi, ch);
        } else if (code === 0x18 || code === 0x1a) {
          this.#state = "text"; // CAN and SUB cancel a sequence
        } else if (code >= 0x20) {
          this.#csi += ch;
        }
        return;
      case "osc":
        if (code === 0x07) this.#state = "text";
        else if (code === 0x1b) this.#state = "esc"; // ESC \ ends it; the backslash is eaten
        return;
      case "charset":
        this.#state = "text";
        return;
      case "text":
        break;
    }
    if (code === 0x1b) {
      this.#state = "esc";
      return;
    }
    if (code < 0x20 || code === 0x7f) {
      this.#c0(code);
      return;
    }
    this.#print(ch);
  }

  #c0(code: number): void {
    switch (code) {
      case 0x08: // BS
        this.#pendingWrap = false;
        this.#col = Math.max(0, this.#col - 1);
        return;
      case 0x09: // HT: the next multiple of 8
        this.#col = Math.min(this.cols - 1, (Math.floor(this.#col / 8) + 1) * 8);
        return;
      case 0x0a: // LF, VT, FF
      case 0x0b:
      case 0x0c:
        this.#pendingWrap = false;
        this.#lineFeed();
        return;
      case 0x0d: // CR
        this.#pendingWrap = false;
        this.#col = 0;
        return;
      default:
        return; // BEL, NUL and the rest do not draw
    }
  }

  #print(ch: string): void {
    if (this.#pendingWrap && this.#autowrap) {
      this.#col = 0;
      this.#lineFeed();
    }
    this.#pendingWrap = false;
    const row = this.#grid[this.#row] as string[];
    row[this.#col] = ch;
    if (this.#col === this.cols - 1) this.#pendingWrap = true;
    else this.#col++;
  }

  #lineFeed(): void {
    if (this.#row === this.#bottom) this.#scrollUp(1);
    else if (this.#row < this.rows - 1) this.#row++;
  }

  #scrollUp(n: number): void {
    for (let i = 0; i < n; i++) {
      this.#grid.splice(this.#top, 1);
      this.#grid.splice(this.#bottom, 0, this.#blankRow());
    }
  }

  #scrollDown(n: number): void {
    for (let i = 0; i < n; i++) {
      this.#grid.splice(this.#bottom, 1);
      this.#grid.splice(this.#top, 0, this.#blankRow());
    }
  }

  #escape(ch: string): void {
    this.#state = "text";
    switch (ch) {
      case "[":
        this.#state = "csi";
        this.#csi = "";
        return;
      case "]":
        this.#state = "osc";
        return;
      case "(":
      case ")":
      case "*":
      case "+":
      case "#":
        this.#state = "charset";
        return;
      case "7":
        this.#saved = { row: this.#row, col: this.#col };
        return;
      case "8":
        this.#moveTo(this.#saved.row, this.#saved.col);
        return;
      case "D":
        this.#lineFeed();
        return;
      case "E":
        this.#col = 0;
        this.#lineFeed();
        return;
      case "M":
        if (this.#row === this.#top) this.#scrollDown(1);
        else this.#row = Math.max(0, this.#row - 1);
        return;
      case "c":
        this.#grid = this.#blank();
        this.#top = 0;
        this.#bottom = this.rows - 1;
        this.#moveTo(0, 0);
        return;
      default:
        return; // ESC = , ESC > and the like change nothing on the screen
    }
  }

  #moveTo(row: number, col: number): void {
    this.#pendingWrap = false;
    this.#row = Math.max(0, Math.min(this.rows - 1, row));
    this.#col = Math.max(0, Math.min(this.cols - 1, col));
  }

  #control(params: string, final: string): void {
    const priv = params.startsWith("?") || params.startsWith(">") || params.startsWith("=");
    const nums = (priv ? params.slice(1) : params)
      .replace(/[ -/]+$/, "")
      .split(";")
      .map((p) => (p === "" ? 0 : Number.parseInt(p, 10)));
    const n = (i: number, fallback = 1) => (nums[i] && nums[i] > 0 ? nums[i] : fallback);
    const row = this.#grid[this.#row] as string[];
    switch (final) {
      case "H":
      case "f":
        this.#moveTo(n(0) - 1, n(1) - 1);
        return;
      case "A":
        this.#moveTo(this.#row - n(0), this.#col);
        return;
      case "B":
        this.#moveTo(this.#row + n(0), this.#col);
        return;
      case "C":
        this.#moveTo(this.#row, this.#col + n(0));
        return;
      case "D":
        this.#moveTo(this.#row, this.#col - n(0));
        return;
      case "E":
        this.#moveTo(this.#row + n(0), 0);
        return;
      case "F":
        this.#moveTo(this.#row - n(0), 0);
        return;
      case "G":
      case "`":
        this.#moveTo(this.#row, n(0) - 1);
        return;
      case "d":
        this.#moveTo(n(0) - 1, this.#col);
        return;
      case "J": {
        const mode = nums[0] ?? 0;
        if (mode === 2 || mode === 3) {
          this.#grid = this.#blank();
          return;
        }
        const [from, to] = mode === 1 ? [0, this.#row] : [this.#row, this.rows - 1];
        for (let r = from; r <= to; r++) {
          if (r === this.#row) this.#eraseInLine(mode === 1 ? 1 : 0);
          else this.#grid[r] = this.#blankRow();
        }
        return;
      }
      case "K":
        this.#eraseInLine(nums[0] ?? 0);
        return;
      case "X":
        for (let c = this.#col; c < Math.min(this.cols, this.#col + n(0)); c++) row[c] = " ";
        return;
      case "P":
        row.splice(this.#col, n(0));
        while (row.length < this.cols) row.push(" ");
        return;
      case "@":
        row.splice(this.#col, 0, ...Array.from({ length: n(0) }, () => " "));
        row.length = this.cols;
        return;
      case "L":
      case "M": {
        if (this.#row < this.#top || this.#row > this.#bottom) return;
        const top = this.#top;
        this.#top = this.#row;
        if (final === "L") this.#scrollDown(n(0));
        else this.#scrollUp(n(0));
        this.#top = top;
        return;
      }
      case "S":
        this.#scrollUp(n(0));
        return;
      case "T":
        this.#scrollDown(n(0));
        return;
      case "r":
        this.#top = Math.max(0, n(0) - 1);
        this.#bottom = Math.min(this.rows - 1, n(1, this.rows) - 1);
        if (this.#bottom <= this.#top) {
          this.#top = 0;
          this.#bottom = this.rows - 1;
        }
        this.#moveTo(0, 0);
        return;
      case "h":
      case "l":
        if (!priv) return;
        for (const mode of nums) {
          if (mode === 7) this.#autowrap = final === "h";
          // The alternate screen (47, 1047, 1049): a VT220 has none; xterm starts it blank.
          if (mode === 47 || mode === 1047 || mode === 1049) this.#grid = this.#blank();
        }
        return;
      case "n":
        if (!priv && nums[0] === 6) this.#replies.push(`\x1b[${this.#row + 1};${this.#col + 1}R`);
        else if (!priv && nums[0] === 5) this.#replies.push("\x1b[0n");
        return;
      case "c":
        // Device attributes: a VT220 says so.
        if (!priv && (nums[0] ?? 0) === 0) this.#replies.push("\x1b[?62;1;6c");
        return;
      default:
        return; // SGR and the rest: attributes, not text
    }
  }

  #eraseInLine(mode: number): void {
    const row = this.#grid[this.#row] as string[];
    const [from, to] =
      mode === 1 ? [0, this.#col] : mode === 2 ? [0, this.cols - 1] : [this.#col, this.cols - 1];
    for (let c = from; c <= to; c++) row[c] = " ";
  }
}

/** Keys as a VT220 keyboard sends them. */
export const KEYS = {
  up: "\x1b[A",
  down: "\x1b[B",
  enter: "\r",
  escape: "\x1b",
  pageUp: "\x1b[5~",
  pageDown: "\x1b[6~",
  ctrlL: "\x0c",
} as const;

/** The screen's row `n` (1-based), as read now. */
export function row(screen: string, n: number): string {
  return screen.split("\n")[n - 1] ?? "";
}

const POLL_MS = 25;
/** A screen counts once the console has been quiet this long: the menu draws a screen in parts. */
const QUIET_MS = 300;

/**
 * A person at a terminal on the VM's serial port: the screen follows the console (all
 * boots), size questions are answered, keys are typed. stop() ends the polling.
 */
export class SerialTerminal {
  screen: VtScreen;
  readonly #vm: Vm;
  #fed = 0;
  #changedAt = Date.now();
  readonly #timer: NodeJS.Timeout;

  constructor(vm: Vm, size: ScreenSize = { cols: 80, rows: 24 }) {
    this.#vm = vm;
    this.screen = new VtScreen(size);
    this.#timer = setInterval(() => this.#pump(), POLL_MS);
  }

  stop(): void {
    clearInterval(this.#timer);
  }

  /**
   * A new, blank screen from here on (after a reset: the next boot draws from nothing),
   * of another size if given: a different terminal on the same serial port.
   */
  forget(size: ScreenSize = { cols: this.screen.cols, rows: this.screen.rows }): void {
    this.#fed = this.#vm.rawConsole().length;
    this.screen = new VtScreen(size);
  }

  /** Feeds what the console printed since the last look, and answers what it asked. */
  #pump(): void {
    const raw = this.#vm.rawConsole();
    if (raw.length === this.#fed) return;
    this.screen.write(raw.slice(this.#fed));
    this.#fed = raw.length;
    this.#changedAt = Date.now();
    for (const reply of this.screen.takeReplies()) void this.#vm.type(reply).catch(() => {});
  }

  /** The screen now. */
  text(): string {
    this.#pump();
    return this.screen.text();
  }

  /**
   * Waits until the screen shows every one of `texts` at once (the screen, not the
   * console's history: a line since overwritten does not count) and the console has been
   * quiet for QUIET_MS, so the screen is drawn whole; returns the screen.
   */
  async waitFor(texts: readonly (string | RegExp)[], timeoutMs: number): Promise<string> {
    const until = Date.now() + timeoutMs;
    for (;;) {
      const screen = this.text();
      const shows = texts.every((t) =>
        typeof t === "string" ? screen.includes(t) : t.test(screen),
      );
      if (shows && Date.now() - this.#changedAt >= QUIET_MS) return screen;
      if (Date.now() > until) {
        throw new Error(
          `the serial console did not show ${texts.map(String).join(" and ")} within ${timeoutMs / 1000} s; the screen:\n${screen}\n--- the console's last lines ---\n${this.#vm.tail()}`,
        );
      }
      await new Promise((r) => setTimeout(r, 100));
    }
  }

  /** Types keys (KEYS or text), one call each, with a pause between for the menu to draw. */
  async keys(...keys: string[]): Promise<void> {
    for (const key of keys) {
      await this.#vm.type(key);
      await new Promise((r) => setTimeout(r, 300));
    }
  }
}
