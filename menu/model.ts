// The menu as a state machine: a model and an event in, the next model and the effects to
// run out. No I/O, no clock (events carry their time), no timers: nothing happens unless a
// key is pressed or something the menu started reports back.
import type { Layout } from "../installer/plan/types.ts";
import { type Action, entriesOf } from "./screens.ts";
import { applyEvent, failRun, finishRun, startRun } from "./steps.ts";
import type {
  Effect,
  KeyName,
  MenuData,
  MenuEvent,
  Model,
  PlanEntry,
  Screen,
  Size,
  Step,
} from "./types.ts";
import { geometryOf } from "./view.ts";

/** The longest name the typed field takes: a DNS-1123 label. */
const MAX_TYPED = 63;

export function initModel(data: MenuData, size: Size): Model {
  return { data, size, screen: { kind: "main" }, selected: 0, scroll: 0, mainSelected: 0 };
}

export function update(model: Model, event: MenuEvent): Step {
  switch (event.type) {
    case "key":
      return onKey(model, event.key, event.ch);
    case "resize":
      return same(clampSelection({ ...model, size: event.size }));
    case "install-event": {
      const { screen } = model;
      if (screen.kind !== "installing") return same(model);
      const run = applyEvent(screen.run, event.event, event.at);
      return same({ ...model, screen: { kind: "installing", run } });
    }
    case "install-done": {
      const { screen } = model;
      if (screen.kind !== "installing") return same({ ...model, data: event.data });
      const run = finishRun(screen.run);
      const next: Screen = event.alreadyOn
        ? { kind: "installed", run, alreadyOn: event.alreadyOn }
        : {
            kind: "installed",
            run,
            ...(event.recoveryKey ? { recoveryKey: event.recoveryKey } : {}),
          };
      return same(show({ ...model, data: event.data }, next));
    }
    case "install-failed": {
      const { screen } = model;
      if (screen.kind !== "installing") return same({ ...model, data: event.data });
      const run = failRun(screen.run);
      return same(
        show({ ...model, data: event.data }, { kind: "failed", run, error: event.error }),
      );
    }
    case "repair-line": {
      const { screen } = model;
      if (screen.kind !== "repairing") return same(model);
      const run = { ...screen.run, lines: [...screen.run.lines, event.line] };
      return same({ ...model, screen: { kind: "repairing", run } });
    }
    case "repair-done": {
      const { screen } = model;
      if (screen.kind !== "repairing") return same({ ...model, data: event.data });
      return same(show({ ...model, data: event.data }, { kind: "repaired", run: screen.run }));
    }
    case "repair-failed": {
      const { screen } = model;
      const fresh = { ...model, data: event.data };
      if (screen.kind !== "repairing") return same(fresh);
      const { machine } = screen.run;
      // A refusal comes before the repair writes: it reads like the plan's own refusal.
      return same(
        show(
          fresh,
          event.refused
            ? { kind: "repair-refused", machine, ...event.refused }
            : { kind: "repair-failed", run: screen.run, error: event.error },
        ),
      );
    }
    case "report":
      if (model.screen.kind !== "report") return same(model);
      return same(show(model, { kind: "report", text: event.text }));
    case "refreshed": {
      const fresh = { ...model, data: event.data };
      if (model.screen.kind === "reading")
        return showPlan(fresh, model.screen.machine, model.screen.entry);
      const back = model.screen.kind === "shell" ? toMain(fresh) : fresh;
      return same(clampSelection(back));
    }
    case "notice":
      return same(show(model, { kind: "notice", lines: event.lines }));
  }
}

function onKey(model: Model, key: KeyName, ch: string | undefined): Step {
  const { screen } = model;
  if (screen.kind === "type-name") {
    if (key === "enter" && screen.typed === screen.machine)
      return startInstall(model, screen.machine, true, screen.wipeClusters, screen.layout);
    return same(onTypedKey(model, screen, key, ch));
  }
  if (screen.kind === "type-cluster") {
    if (key === "enter" && screen.typed === screen.cluster)
      return showWipeWith(model, screen.machine, screen.cluster);
    return same(onTypedKey(model, screen, key, ch));
  }
  if (screen.kind === "shell" || screen.kind === "power-off" || screen.kind === "reading")
    return same(model);
  const nav = navigation(key, ch);
  const g = geometryOf(model);
  const last = g.entries.length - 1;
  switch (nav) {
    case "up":
      return same({ ...model, selected: Math.max(0, model.selected - 1) });
    case "down":
      return same({ ...model, selected: Math.max(0, Math.min(last, model.selected + 1)) });
    case "home":
      return same({ ...model, selected: 0 });
    case "end":
      return same({ ...model, selected: Math.max(0, last) });
    case "pageup":
      return same({ ...model, scroll: Math.max(0, g.scroll - Math.max(1, g.bodyRows - 1)) });
    case "pagedown":
      return same({
        ...model,
        scroll: Math.min(g.maxScroll, g.scroll + Math.max(1, g.bodyRows - 1)),
      });
    case "back":
      // The main menu has nowhere to go back to, and an install or a repair cannot be left.
      if (screen.kind === "main" || screen.kind === "installing" || screen.kind === "repairing")
        return same(model);
      if (screen.kind === "report" && screen.text === undefined) return same(model);
      return same(toMain(model));
    case "enter": {
      const entry = g.entries[model.selected];
      return entry ? act(model, entry.action) : same(model);
    }
    case undefined:
      return same(model);
  }
}

type Nav = "up" | "down" | "home" | "end" | "pageup" | "pagedown" | "back" | "enter";

// The keys outside the typed field: arrows or j/k, Enter, Esc or q, and the paging keys
// (PgUp/PgDn, or b/Space as in less, for keyboards without them).
function navigation(key: KeyName, ch: string | undefined): Nav | undefined {
  if (key === "escape") return "back";
  if (key === "backspace" || key === "redraw") return undefined;
  if (key !== "char") return key;
  switch (ch) {
    case "j":
      return "down";
    case "k":
      return "up";
    case "q":
      return "back";
    case " ":
      return "pagedown";
    case "b":
      return "pageup";
    default:
      return undefined;
  }
}

function onTypedKey(
  model: Model,
  screen: Extract<Screen, { kind: "type-name" | "type-cluster" }>,
  key: KeyName,
  ch: string | undefined,
): Model {
  switch (key) {
    case "escape":
      // Back to the wipe's confirmation: the one this name was asked for, or the plain wipe.
      if (screen.kind === "type-cluster") return showPlan(model, screen.machine, "wipe").model;
      return show(model, {
        kind: "confirm-wipe",
        machine: screen.machine,
        layout: screen.layout,
        wipeClusters: screen.wipeClusters,
      });
    case "backspace":
      return { ...model, screen: { ...screen, typed: screen.typed.slice(0, -1) } };
    case "char":
      if (ch === undefined || !/^[\x21-\x7e]$/.test(ch) || screen.typed.length >= MAX_TYPED)
        return model;
      return { ...model, screen: { ...screen, typed: screen.typed + ch } };
    case "enter":
      // The right name started the install in onKey: this one is wrong, and the screen says so.
      return { ...model, screen: { ...screen, typed: "", wrong: screen.typed } };
    default:
      return model;
  }
}

function act(model: Model, action: Action): Step {
  const { screen } = model;
  switch (action.type) {
    case "plan":
      // The plan shown must be of the disks as they are now: read them again first.
      return {
        model: show(
          { ...model, mainSelected: model.selected },
          { kind: "reading", machine: action.machine, entry: action.entry },
        ),
        effects: [{ type: "refresh" }],
      };
    case "install": {
      if (screen.kind !== "confirm-install") return same(model);
      return startInstall(model, screen.machine, false, [], screen.layout);
    }
    case "repair": {
      if (screen.kind !== "confirm-repair") return same(model);
      const { survivor, target, member } = screen.decision;
      const run = { machine: screen.machine, survivor: survivor.path, target: target.path, member };
      // The repair is given the two disks the confirmation named and no other: it can take
      // no disk but the one the person said Yes to.
      return {
        model: show(model, { kind: "repairing", run: { ...run, lines: [] } }),
        effects: [
          { type: "repair", machine: run.machine, survivor: run.survivor, target: run.target },
        ],
      };
    }
    case "ask-name": {
      if (screen.kind !== "confirm-wipe") return same(model);
      return same(
        show(model, {
          kind: "type-name",
          machine: screen.machine,
          layout: screen.layout,
          wipeClusters: screen.wipeClusters,
          typed: "",
        }),
      );
    }
    case "ask-cluster": {
      if (screen.kind !== "confirm-wipe" && screen.kind !== "refused") return same(model);
      return same(
        show(model, {
          kind: "type-cluster",
          machine: screen.machine,
          cluster: action.cluster,
          typed: "",
        }),
      );
    }
    case "retry": {
      if (screen.kind !== "failed") return same(model);
      const { run } = screen;
      return startInstall(model, run.machine, run.wipe, run.wipeClusters, run.layout);
    }
    case "back":
      return same(toMain(model));
    case "hwreport":
      return {
        model: show({ ...model, mainSelected: model.selected }, { kind: "report" }),
        effects: [{ type: "hwreport" }],
      };
    case "shell":
      return {
        model: show({ ...model, mainSelected: model.selected }, { kind: "shell" }),
        effects: [{ type: "shell" }],
      };
    case "power-off":
      return { model: show(model, { kind: "power-off" }), effects: [{ type: "power-off" }] };
  }
}

// The plan of install as, wipe and reinstall as or the repair: its confirmation, or why
// there is none.
function showPlan(model: Model, machine: string, entry: PlanEntry): Step {
  if (entry === "repair") return showRepair(model, machine);
  const wipe = entry === "wipe";
  const result = model.data.plans[machine]?.[entry];
  if (!result) return same(toMain(model));
  if (!result.ok) {
    return same(show(model, { kind: "refused", machine, wipe, failure: result.failure }));
  }
  // Confirmation starts on No: Enter alone never writes a disk.
  if (!wipe) return same(show(model, { kind: "confirm-install", machine, layout: result.layout }));
  return same(
    show(model, { kind: "confirm-wipe", machine, layout: result.layout, wipeClusters: [] }),
  );
}

// The repair's confirmation, or its refusal: no blank disk, the mirror whole again.
function showRepair(model: Model, machine: string): Step {
  const decision = model.data.plans[machine]?.repair;
  if (!decision) return same(toMain(model));
  if (!decision.ok) {
    const { what, hint } = decision;
    return same(show(model, { kind: "repair-refused", machine, what, hint }));
  }
  return same(show(model, { kind: "confirm-repair", machine, decision }));
}

// The wipe that erases `cluster`'s disks too, once its name was typed.
function showWipeWith(model: Model, machine: string, cluster: string): Step {
  const result = model.data.plans[machine]?.wipeWith[cluster];
  if (!result) return same(toMain(model));
  if (!result.ok) {
    return same(show(model, { kind: "refused", machine, wipe: true, failure: result.failure }));
  }
  return same(
    show(model, { kind: "confirm-wipe", machine, layout: result.layout, wipeClusters: [cluster] }),
  );
}

function startInstall(
  model: Model,
  machine: string,
  wipe: boolean,
  wipeClusters: readonly string[],
  layout: Layout,
): Step {
  const run = startRun(machine, wipe, wipeClusters, model.data.release, layout);
  const effects: Effect[] = [{ type: "install", machine, wipe, wipeClusters, layout }];
  return { model: show(model, { kind: "installing", run }), effects };
}

function show(model: Model, screen: Screen): Model {
  return { ...model, screen, selected: 0, scroll: 0 };
}

function toMain(model: Model): Model {
  return clampSelection({ ...show(model, { kind: "main" }), selected: model.mainSelected });
}

function clampSelection(model: Model): Model {
  const n = entriesOf(model).length;
  const selected = Math.max(0, Math.min(model.selected, n - 1));
  const g = geometryOf({ ...model, selected });
  return { ...model, selected, scroll: g.scroll };
}

function same(model: Model): Step {
  return { model, effects: [] };
}
