// The menu running: reads the machine, draws the model, feeds it keys and the installer's
// events, and runs the effects it asks for (install, repair, hardware report, shell, power off).
// It ends only through Power off; a failed install holds the console on its screen.
import { LikenError, oneLine } from "../common/errors.ts";
import { LLDP_LISTEN_MS } from "../hardware/lldp-neighbors.ts";
import { produceReport, renderReport } from "../hwreport/index.ts";
import { install } from "../installer/install.ts";
import { repairMirror } from "../installer/repair/repair.ts";
import type { Manifest } from "../manifest/index.ts";
import { initialMenuData, loadMenuData, type MenuSources } from "./data.ts";
import { readIdentity } from "./identity.ts";
import { initModel, update } from "./model.ts";
import { findTtyPath, powerOff, runShell } from "./system.ts";
import { Terminal } from "./terminal.ts";
import { type TtyInput, type TtyOutput, terminalSize } from "./terminal-size.ts";
import type { Effect, MenuData, MenuEvent, Model, Size } from "./types.ts";
import { frameOf } from "./view.ts";

/** Progress repaints at most this often: a 115200-baud console must keep up. */
const PAINT_INTERVAL_MS = 100;

export interface MenuOptions {
  readonly manifest: Manifest;
  readonly releaseDir: string;
  readonly paths: readonly string[];
  readonly statusFile: string;
  /** The manifest's warnings, one line each. */
  readonly warnings: readonly string[];
  /** Where each hardware report shown is saved too (the stick's payload), if anywhere. */
  readonly reportDir?: string;
  /** LIKEN_STICK=1: Power off powers off; elsewhere it ends the menu. */
  readonly onStick: boolean;
  readonly input: TtyInput;
  readonly output: TtyOutput;
  readonly term: string;
  /** The terminal's size, when already asked (terminalSize). */
  readonly size?: Promise<Size>;
}

/** Runs the menu until Power off ends it (off the stick); returns the exit code. */
export async function runMenu(options: MenuOptions): Promise<number> {
  const tty = findTtyPath();
  const sources: MenuSources = {
    manifest: options.manifest,
    releaseDir: options.releaseDir,
    paths: options.paths,
    identity: await readIdentity(),
    warnings: options.warnings,
    features: { hwreport: true, shell: tty !== undefined },
  };
  // The first screen does not wait for the disks: they are read meanwhile, and the screen
  // says so until they are (a machine's install is named there once read).
  const [first, size] = await Promise.all([
    initialMenuData(sources),
    options.size ?? terminalSize(options.input, options.output),
  ]);
  return new MenuRun(options, sources, tty, first, size).untilPowerOff();
}

// One run of the menu: the model, the screen it paints, and the effects it asks for.
class MenuRun {
  private data: MenuData;
  /** The disks being read: the first read, started with the run; undefined between reads. */
  private reading: Promise<MenuData> | undefined;
  private readonly terminal: Terminal;
  private model: Model;
  private lastPaint = 0;
  private pending: NodeJS.Timeout | undefined;
  private exit: { resolve: (code: number) => void; reject: (error: unknown) => void } = {
    resolve: () => undefined,
    reject: () => undefined,
  };

  constructor(
    private readonly options: MenuOptions,
    private readonly sources: MenuSources,
    private readonly tty: string | undefined,
    first: MenuData,
    size: Size,
  ) {
    this.data = first;
    this.reading = loadMenuData(sources, first);
    this.terminal = new Terminal(options.input, options.output, options.term, size);
    this.model = initModel(first, size);
  }

  untilPowerOff(): Promise<number> {
    return new Promise<number>((resolve, reject) => {
      this.exit = { resolve, reject };
      this.terminal.onKey((k) => {
        if (k.key === "redraw") this.terminal.invalidate();
        this.dispatch({ type: "key", key: k.key, ...(k.ch ? { ch: k.ch } : {}) });
      });
      this.terminal.onResize((s) => this.dispatch({ type: "resize", size: s }));
      this.paint();
      void this.reload().then((fresh) => {
        // The whole screen again: the stick's console lines while it loaded the drivers
        // (which the disks waited for) were written over the first one.
        if (this.model.screen.kind !== "shell") this.terminal.invalidate();
        this.dispatch({ type: "refreshed", data: fresh });
      });
    });
  }

  private paint(): void {
    if (this.pending) clearTimeout(this.pending);
    this.pending = undefined;
    this.lastPaint = Date.now();
    if (this.model.screen.kind !== "shell") this.terminal.paint(frameOf(this.model));
  }

  // Progress comes many times a second; the screen follows at most every PAINT_INTERVAL_MS.
  private paintSoon(): void {
    const wait = this.lastPaint + PAINT_INTERVAL_MS - Date.now();
    if (wait <= 0) this.paint();
    else this.pending ??= setTimeout(() => this.paint(), wait);
  }

  private finish(code: number): void {
    if (this.pending) clearTimeout(this.pending);
    this.terminal.close();
    this.exit.resolve(code);
  }

  private dispatch(event: MenuEvent): void {
    try {
      const step = update(this.model, event);
      this.model = step.model;
      if (event.type === "install-event" && event.event.type === "progress") this.paintSoon();
      else this.paint();
      for (const effect of step.effects) this.perform(effect);
    } catch (error) {
      if (this.pending) clearTimeout(this.pending);
      this.terminal.close();
      this.exit.reject(error);
    }
  }

  // A read already under way (the first one) is the fresh one.
  private async reload(): Promise<MenuData> {
    const read = this.reading ?? loadMenuData(this.sources, this.data);
    this.data = await read.catch((error: unknown) => ({
      ...this.data,
      disksReading: false,
      disksProblem: oneLine(error),
    }));
    this.reading = undefined;
    return this.data;
  }

  private perform(effect: Effect): void {
    switch (effect.type) {
      case "refresh":
        void this.reload().then((fresh) => this.dispatch({ type: "refreshed", data: fresh }));
        return;
      case "install":
        this.installMachine(effect);
        return;
      case "repair":
        this.repairMachine(effect);
        return;
      case "hwreport":
        void report(this.options).then((text) => this.dispatch({ type: "report", text }));
        return;
      case "shell":
        this.openShell();
        return;
      case "power-off":
        this.endByPowerOff();
        return;
    }
  }

  private installMachine(effect: Extract<Effect, { type: "install" }>): void {
    const { options } = this;
    void install({
      manifest: options.manifest,
      machine: effect.machine,
      releaseDir: options.releaseDir,
      wipe: effect.wipe,
      wipeClusters: effect.wipeClusters,
      confirmed: effect.layout,
      paths: options.paths,
      statusFile: options.statusFile,
      onEvent: (event) => this.dispatch({ type: "install-event", event, at: Date.now() }),
      recoveryTo: ["console"],
    }).then(
      async (outcome) => {
        const fresh = await this.reload();
        this.dispatch({
          type: "install-done",
          ...(outcome.result === "already-installed" ? { alreadyOn: outcome.disk.path } : {}),
          ...(outcome.result === "installed" && outcome.recoveryKey
            ? { recoveryKey: outcome.recoveryKey }
            : {}),
          data: fresh,
        });
      },
      async (error: unknown) => {
        const fresh = await this.reload();
        this.dispatch({ type: "install-failed", error: oneLine(error), data: fresh });
      },
    );
  }

  private repairMachine(effect: Extract<Effect, { type: "repair" }>): void {
    void repairMirror({
      manifest: this.options.manifest,
      machine: effect.machine,
      paths: [effect.survivor, effect.target],
      say: (line) => this.dispatch({ type: "repair-line", line }),
    }).then(
      async () => this.dispatch({ type: "repair-done", data: await this.reload() }),
      async (error: unknown) => {
        const data = await this.reload();
        const refused =
          error instanceof LikenError && error.kind === "refused"
            ? { what: error.what, hint: error.hint }
            : undefined;
        this.dispatch({
          type: "repair-failed",
          error: oneLine(error),
          ...(refused ? { refused } : {}),
          data,
        });
      },
    );
  }

  private openShell(): void {
    void this.terminal
      .lend(() => runShell(this.tty as string))
      .then(
        async () => this.dispatch({ type: "refreshed", data: await this.reload() }),
        async (error: unknown) => {
          this.dispatch({ type: "refreshed", data: await this.reload() });
          this.dispatch({
            type: "notice",
            lines: ["The shell did not start:", oneLine(error)],
          });
        },
      );
  }

  private endByPowerOff(): void {
    if (!this.options.onStick) {
      this.finish(0);
      return;
    }
    void powerOff().then(
      // poweroff -f returns only if the kernel did not power off.
      () =>
        this.dispatch({
          type: "notice",
          lines: ["poweroff -f returned and the machine is still on."],
        }),
      (error: unknown) =>
        this.dispatch({
          type: "notice",
          lines: ["The machine could not power off:", oneLine(error)],
        }),
    );
  }
}

// The hardware report for the report screen: the text `liken-stick hwreport` prints, and
// the reason when its copy on the stick could not be saved.
async function report(options: MenuOptions): Promise<string> {
  try {
    const { report, notSaved } = await produceReport({
      manifest: options.manifest,
      releaseDir: options.releaseDir,
      ...(options.reportDir ? { saveDir: options.reportDir } : {}),
      // Listening sends an LLDPDU on every NIC with carrier: on the stick, not a workstation.
      ...(options.onStick ? { lldpMs: LLDP_LISTEN_MS } : {}),
    });
    return `${renderReport(report)}${notSaved ? `${oneLine(notSaved)}\n` : ""}`;
  } catch (error) {
    return `${error instanceof LikenError ? "" : "error: "}${oneLine(error)}\n`;
  }
}
