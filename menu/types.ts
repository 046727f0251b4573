// The menu's values: the data it shows, its screens, the events that move it and the
// effects it asks for. The model (model.ts) is a pure function of these; app.ts runs the
// effects and feeds the events.
import type { Disk } from "../hardware/disks/index.ts";
import type { InstallEvent, InstallStep } from "../installer/install.ts";
import type { Layout, PlanFailure, PlanResult } from "../installer/plan/types.ts";
import type { RepairDecision } from "../installer/repair/plan-repair.ts";

/** What /sys/class/dmi/id says about the machine; "unknown" for what it does not say. */
export interface Identity {
  readonly vendor: string;
  readonly model: string;
  readonly serial: string;
}

export interface MachinePlans {
  readonly install: PlanResult;
  readonly wipe: PlanResult;
  /**
   * For each other cluster whose liken disks are on this machine: the wipe that erases
   * them too. A plain wipe leaves another cluster's disks alone.
   */
  readonly wipeWith: Readonly<Record<string, PlanResult>>;
  /**
   * The repair of the machine's mirror: a blank disk in the missing member's place, or
   * why not. NothingToRepair (no member here, or both) means the menu offers no repair.
   */
  readonly repair: RepairDecision;
}

/** What an entry that plans shows: install as, wipe and reinstall as, or repair the mirror. */
export type PlanEntry = "install" | "wipe" | "repair";

/** A repair as its screens show it: the disks the confirmation named, and its lines so far. */
export interface RepairRun {
  readonly machine: string;
  readonly survivor: string;
  readonly target: string;
  readonly member: 1 | 2;
  /** The repair's progress lines, in order. */
  readonly lines: readonly string[];
}

/** Everything the menu shows, read again after every install and every shell. */
export interface MenuData {
  readonly cluster: string;
  /** The release the manifest installs. */
  readonly release: string;
  /** Why the release directory cannot be installed, found before anything is asked. */
  readonly releaseProblem?: string;
  readonly identity: Identity;
  /** The manifest's machines, in its order. */
  readonly machines: readonly string[];
  /** The machine whose match in the manifest selects this hardware, if exactly one does. */
  readonly matched?: string;
  readonly disks: readonly Disk[];
  /** The disks are being read for the first time: the first screen does not wait for them. */
  readonly disksReading?: boolean;
  /** Why the disks could not be listed again (the last list stays). */
  readonly disksProblem?: string;
  /** For each machine: the plan of install as, and of wipe and reinstall as. */
  readonly plans: Readonly<Record<string, MachinePlans>>;
  /** The manifest's warnings, one line each. */
  readonly warnings: readonly string[];
  /** Entries that exist only where they work. */
  readonly features: { readonly hwreport: boolean; readonly shell: boolean };
}

export type StepState = "pending" | "running" | "done" | "failed";

export interface StepLine {
  readonly step: InstallStep;
  readonly what: string;
  readonly state: StepState;
}

/** One attempt of an install, as the progress screen shows it. */
export interface InstallRun {
  readonly machine: string;
  readonly wipe: boolean;
  /** Other clusters whose disks the wipe erases, each named by the person (type-cluster). */
  readonly wipeClusters: readonly string[];
  readonly release: string;
  /** The layout the confirmation showed (Retry runs the same install). */
  readonly layout: Layout;
  readonly steps: readonly StepLine[];
  /** The slot write: bytes done of total, and when it started and last moved (ms). */
  readonly slot?: {
    readonly done: number;
    readonly total: number;
    readonly startedAt: number;
    readonly at: number;
  };
}

export type Screen =
  | { readonly kind: "main" }
  /** The disks are read again before a plan is shown: another console may have changed them. */
  | { readonly kind: "reading"; readonly machine: string; readonly entry: PlanEntry }
  /** A plan that cannot be made: why, and the disks considered. */
  | {
      readonly kind: "refused";
      readonly machine: string;
      readonly wipe: boolean;
      readonly failure: PlanFailure;
    }
  | { readonly kind: "confirm-install"; readonly machine: string; readonly layout: Layout }
  | {
      readonly kind: "confirm-wipe";
      readonly machine: string;
      readonly layout: Layout;
      readonly wipeClusters: readonly string[];
    }
  /** Wipe and reinstall goes on only when the machine's name is typed. */
  | {
      readonly kind: "type-name";
      readonly machine: string;
      readonly layout: Layout;
      readonly wipeClusters: readonly string[];
      readonly typed: string;
      /** The last name typed that was not the machine's. */
      readonly wrong?: string;
    }
  /** Another cluster's disks join the wipe only when that cluster's name is typed. */
  | {
      readonly kind: "type-cluster";
      readonly machine: string;
      readonly cluster: string;
      readonly typed: string;
      /** The last name typed that was not the cluster's. */
      readonly wrong?: string;
    }
  | { readonly kind: "installing"; readonly run: InstallRun }
  | {
      readonly kind: "installed";
      readonly run: InstallRun;
      /** Set when the disk already held this install and nothing was written. */
      readonly alreadyOn?: string;
      /** [encryption] recovery = "console": the recovery key, shown on this screen only. */
      readonly recoveryKey?: string;
    }
  | { readonly kind: "failed"; readonly run: InstallRun; readonly error: string }
  /** The repair's plan: the blank disk, the place it takes and the member beside it. */
  | {
      readonly kind: "confirm-repair";
      readonly machine: string;
      readonly decision: Extract<RepairDecision, { ok: true }>;
    }
  /** A repair refused, before it wrote anything: what is wrong and what to do. */
  | {
      readonly kind: "repair-refused";
      readonly machine: string;
      readonly what: string;
      readonly hint: string;
    }
  | { readonly kind: "repairing"; readonly run: RepairRun }
  | { readonly kind: "repaired"; readonly run: RepairRun }
  | { readonly kind: "repair-failed"; readonly run: RepairRun; readonly error: string }
  | { readonly kind: "report"; readonly text?: string }
  | { readonly kind: "shell" }
  | { readonly kind: "power-off" }
  /** A message and Back: a power off or a shell that could not start. */
  | { readonly kind: "notice"; readonly lines: readonly string[] };

export interface Size {
  readonly cols: number;
  readonly rows: number;
}

export interface Model {
  readonly data: MenuData;
  readonly size: Size;
  readonly screen: Screen;
  /** The selected entry of the screen. */
  readonly selected: number;
  /** The first line of the screen's text that shows. */
  readonly scroll: number;
  /** The main menu's selection, kept while another screen shows. */
  readonly mainSelected: number;
}

export type KeyName =
  | "up"
  | "down"
  | "enter"
  | "escape"
  | "backspace"
  | "pageup"
  | "pagedown"
  | "home"
  | "end"
  /** Ctrl-L: draw the whole screen again (a serial console attached late shows nothing). */
  | "redraw"
  /** A printable character, in `ch`. */
  | "char";

export type MenuEvent =
  | { readonly type: "key"; readonly key: KeyName; readonly ch?: string }
  | { readonly type: "resize"; readonly size: Size }
  | { readonly type: "install-event"; readonly event: InstallEvent; readonly at: number }
  | {
      readonly type: "install-done";
      readonly alreadyOn?: string;
      readonly recoveryKey?: string;
      readonly data: MenuData;
    }
  | { readonly type: "install-failed"; readonly error: string; readonly data: MenuData }
  /** One of the repair's progress lines. */
  | { readonly type: "repair-line"; readonly line: string }
  | { readonly type: "repair-done"; readonly data: MenuData }
  /** The repair threw: `refused` when it refused before writing (a LikenError "refused"). */
  | {
      readonly type: "repair-failed";
      readonly error: string;
      readonly refused?: { readonly what: string; readonly hint: string };
      readonly data: MenuData;
    }
  | { readonly type: "report"; readonly text: string }
  | { readonly type: "refreshed"; readonly data: MenuData }
  | { readonly type: "notice"; readonly lines: readonly string[] };

export type Effect =
  /** Read the disks again and plan every machine; answered by "refreshed". */
  | { readonly type: "refresh" }
  /** Install `layout`, the plan the person confirmed, or nothing if the disks changed since. */
  | {
      readonly type: "install";
      readonly machine: string;
      readonly wipe: boolean;
      readonly wipeClusters: readonly string[];
      readonly layout: Layout;
    }
  /** Repair the machine's mirror on exactly the two disks the confirmation named. */
  | {
      readonly type: "repair";
      readonly machine: string;
      readonly survivor: string;
      readonly target: string;
    }
  | { readonly type: "hwreport" }
  | { readonly type: "shell" }
  | { readonly type: "power-off" };

export interface Step {
  readonly model: Model;
  readonly effects: readonly Effect[];
}
