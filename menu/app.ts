// The menu running: reads the machine, draws the model, feeds it keys and the installer's
// events, and runs the effects it asks for (install, hardware report, shell, power off).
// It ends only through Power off; a failed install holds the console on its screen.
import { LikenError, oneLine } from "../common/errors.ts";
import { produceReport, renderReport } from "../hwreport/index.ts";
import { install } from "../installer/install.ts";
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
  let data = first;
  let reading: Promise<MenuData> | undefined = loadMenuData(sources, first);
  const terminal = new Terminal(options.input, options.output, options.term, size);
  let model: Model = initModel(data, size);
  let lastPaint = 0;
  let pending: NodeJS.Timeout | undefined;

  const paint = () => {
    if (pending) clearTimeout(pending);
    pending = undefined;
    lastPaint = Date.now();
    if (model.screen.kind !== "shell") terminal.paint(frameOf(model));
  };
  // Progress comes many times a second; the screen follows at most every PAINT_INTERVAL_MS.
  const paintSoon = () => {
    const wait = lastPaint + PAINT_INTERVAL_MS - Date.now();
    if (wait <= 0) paint();
    else pending ??= setTimeout(paint, wait);
  };

  return new Promise<number>((resolveExit, rejectExit) => {
    const finish = (code: number) => {
      if (pending) clearTimeout(pending);
      terminal.close();
      resolveExit(code);
    };
    const dispatch = (event: MenuEvent) => {
      try {
        const step = update(model, event);
        model = step.model;
        if (event.type === "install-event" && event.event.type === "progress") paintSoon();
        else paint();
        for (const effect of step.effects) perform(effect);
      } catch (error) {
        if (pending) clearTimeout(pending);
        terminal.close();
        rejectExit(error);
      }
    };
    // A read already under way (the first one) is the fresh one.
    const reload = async (): Promise<MenuData> => {
      const read = reading ?? loadMenuData(sources, data);
      data = await read.catch((error: unknown) => ({
        ...data,
        disksReading: false,
        disksProblem: oneLine(error),
      }));
      reading = undefined;
      return data;
    };

    const perform = (effect: Effect) => {
      switch (effect.type) {
        case "refresh":
          void reload().then((fresh) => dispatch({ type: "refreshed", data: fresh }));
          return;
        case "install":
          void install({
            manifest: options.manifest,
            machine: effect.machine,
            releaseDir: options.releaseDir,
            wipe: effect.wipe,
            wipeClusters: effect.wipeClusters,
            confirmed: effect.layout,
            paths: options.paths,
            statusFile: options.statusFile,
            onEvent: (event) => dispatch({ type: "install-event", event, at: Date.now() }),
          }).then(
            async (outcome) => {
              const fresh = await reload();
              dispatch({
                type: "install-done",
                ...(outcome.result === "already-installed" ? { alreadyOn: outcome.disk.path } : {}),
                data: fresh,
              });
            },
            async (error: unknown) => {
              const fresh = await reload();
              dispatch({ type: "install-failed", error: oneLine(error), data: fresh });
            },
          );
          return;
        case "hwreport":
          void report(options).then((text) => dispatch({ type: "report", text }));
          return;
        case "shell":
          void terminal
            .lend(() => runShell(tty as string))
            .then(
              async () => dispatch({ type: "refreshed", data: await reload() }),
              async (error: unknown) => {
                dispatch({ type: "refreshed", data: await reload() });
                dispatch({
                  type: "notice",
                  lines: ["The shell did not start:", oneLine(error)],
                });
              },
            );
          return;
        case "power-off":
          if (!options.onStick) {
            finish(0);
            return;
          }
          void powerOff().then(
            // poweroff -f returns only if the kernel did not power off.
            () =>
              dispatch({
                type: "notice",
                lines: ["poweroff -f returned and the machine is still on."],
              }),
            (error: unknown) =>
              dispatch({
                type: "notice",
                lines: ["The machine could not power off:", oneLine(error)],
              }),
          );
          return;
      }
    };

    terminal.onKey((k) => {
      if (k.key === "redraw") terminal.invalidate();
      dispatch({ type: "key", key: k.key, ...(k.ch ? { ch: k.ch } : {}) });
    });
    terminal.onResize((s) => dispatch({ type: "resize", size: s }));
    paint();
    void reload().then((fresh) => {
      // The whole screen again: the stick's console lines while it loaded the drivers
      // (which the disks waited for) were written over the first one.
      if (model.screen.kind !== "shell") terminal.invalidate();
      dispatch({ type: "refreshed", data: fresh });
    });
  });
}

// The hardware report for the report screen: the text `liken-stick hwreport` prints, and
// the reason when its copy on the stick could not be saved.
async function report(options: MenuOptions): Promise<string> {
  try {
    const { report, notSaved } = await produceReport({
      manifest: options.manifest,
      releaseDir: options.releaseDir,
      ...(options.reportDir ? { saveDir: options.reportDir } : {}),
    });
    return `${renderReport(report)}${notSaved ? `${oneLine(notSaved)}\n` : ""}`;
  } catch (error) {
    return `${error instanceof LikenError ? "" : "error: "}${oneLine(error)}\n`;
  }
}
