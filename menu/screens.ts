// What each screen says: the header, the text, the entries and the help line. Pure: the
// text is made from the model alone, before it is wrapped to the terminal (layout.ts).
import { formatSizeShort } from "../common/size.ts";
import { claimOwnerBeside } from "../formats/claim-words.ts";
import type { Disk } from "../hardware/disks/index.ts";
import { renderDisks } from "../hardware/disks/render.ts";
import { renderPlanFailure } from "../installer/plan/render.ts";
import type { Layout } from "../installer/plan/types.ts";
import { layoutText } from "./layout-text.ts";
import { inMenuWords } from "./menu-words.ts";
import {
  confirmRepairText,
  repairEntryLabel,
  repairedText,
  repairFailedText,
  repairingText,
  repairPrompt,
  repairRefusedText,
} from "./repair-text.ts";
import { failedStep } from "./steps.ts";
import { percent, progressBar, rate, sentence, utcMinute } from "./text.ts";
import type { InstallRun, MenuData, Model, PlanEntry, Screen } from "./types.ts";

export type Action =
  | { readonly type: "plan"; readonly machine: string; readonly entry: PlanEntry }
  | { readonly type: "hwreport" }
  | { readonly type: "shell" }
  | { readonly type: "power-off" }
  | { readonly type: "back" }
  | { readonly type: "install"; readonly machine: string }
  | { readonly type: "repair" }
  | { readonly type: "ask-name" }
  | { readonly type: "ask-cluster"; readonly cluster: string }
  | { readonly type: "retry" };

export interface Entry {
  readonly label: string;
  readonly action: Action;
}

const MOVE = "Arrows or j/k: move";
const SELECT = "Enter: select";
const BACK = "Esc or q: back";
export const SCROLL = "PgUp/PgDn: scroll";

/** The lines above every screen: the cluster and release, this machine, and its install. */
export function headerLines(data: MenuData): string[] {
  const { vendor, model, serial } = data.identity;
  const name = [vendor, model].filter((s) => s !== "unknown").join(" ") || "model unknown";
  const lines = [
    `liken stick   cluster ${data.cluster}   release ${data.release}`,
    `Machine: ${name}   serial ${serial}`,
  ];
  const installed = installedDisk(data.disks);
  if (installed?.claim) {
    const c = installed.claim;
    const who = c.cluster === data.cluster ? c.machine : `${c.machine} of cluster ${c.cluster}`;
    lines.push(
      `This machine is installed as ${who} (release ${c.release}). Remove the stick and power cycle.`,
    );
  }
  return lines;
}

/** The system disk of a complete install, if the machine holds one. */
export function installedDisk(disks: readonly Disk[]): Disk | undefined {
  return disks.find(
    (d) => d.verdict === "liken" && d.claim?.complete === true && d.claim.use === "system",
  );
}

export function entriesOf(model: Model): Entry[] {
  const { screen, data } = model;
  const back: Entry = { label: "Back to the menu", action: { type: "back" } };
  switch (screen.kind) {
    case "main":
      return [
        ...data.machines.map((m) => ({
          label: `Install as ${m}${m === data.matched ? "   (this machine, by its match)" : ""}`,
          action: { type: "plan", machine: m, entry: "install" } as const,
        })),
        ...data.machines.map((m) => ({
          label: `Wipe and reinstall as ${m}`,
          action: { type: "plan", machine: m, entry: "wipe" } as const,
        })),
        // Only where one member of the machine's mirror is here and the other is not.
        ...data.machines
          .filter((m) => offersRepair(data, m))
          .map((m) => ({
            label: repairEntryLabel(m),
            action: { type: "plan", machine: m, entry: "repair" } as const,
          })),
        ...(data.features.hwreport
          ? [{ label: "Hardware report", action: { type: "hwreport" } as const }]
          : []),
        ...(data.features.shell ? [{ label: "Shell", action: { type: "shell" } as const }] : []),
        { label: "Power off", action: { type: "power-off" } },
      ];
    case "confirm-install":
      return [
        { label: "No, back to the menu", action: { type: "back" } },
        {
          label: `Yes, install as ${screen.machine}`,
          action: { type: "install", machine: screen.machine },
        },
      ];
    case "confirm-wipe":
      return [
        { label: "No, back to the menu", action: { type: "back" } },
        { label: "Yes, erase and reinstall", action: { type: "ask-name" } },
        // Another cluster's disks join only from the plain wipe, one cluster at a time.
        ...(screen.wipeClusters.length > 0 ? [] : otherClusterEntries(data, screen.machine)),
      ];
    case "confirm-repair":
      return [
        { label: "No, back to the menu", action: { type: "back" } },
        { label: "Yes, repair the mirror", action: { type: "repair" } },
      ];
    case "installed":
    case "repaired":
      return [{ label: "Power off", action: { type: "power-off" } }, back];
    case "failed":
      return [{ label: "Retry", action: { type: "retry" } }, back];
    case "refused":
      return [back, ...(screen.wipe ? otherClusterEntries(data, screen.machine) : [])];
    case "notice":
    case "repair-refused":
    case "repair-failed":
      return [back];
    case "report":
      return screen.text === undefined ? [] : [back];
    case "type-name":
    case "type-cluster":
    case "reading":
    case "installing":
    case "repairing":
    case "shell":
    case "power-off":
      return [];
  }
}

/** Whether the main menu offers to repair `machine`'s mirror: one member is here, one is not. */
export function offersRepair(data: MenuData, machine: string): boolean {
  const repair = data.plans[machine]?.repair;
  return repair !== undefined && (repair.ok || repair.reason !== "NothingToRepair");
}

// A wipe that also erases another cluster's disks, offered when it would erase some.
function otherClusterEntries(data: MenuData, machine: string): Entry[] {
  return Object.keys(data.plans[machine]?.wipeWith ?? {}).map((cluster) => ({
    label: `Also erase cluster ${cluster}'s disks`,
    action: { type: "ask-cluster", cluster } as const,
  }));
}

/** The screen's text, one string per line, before wrapping. */
export function bodyOf(model: Model): string[] {
  const { screen, data } = model;
  switch (screen.kind) {
    case "main":
      return mainBody(data);
    case "reading":
      return ["Reading the disks."];
    case "refused": {
      const what = screen.wipe ? "Wipe and reinstall as" : "Install as";
      const considered = inMenuWords(renderPlanFailure(screen.failure));
      return [
        `${what} ${screen.machine} cannot start.`,
        sentence(inMenuWords(screen.failure.message)),
        sentence(inMenuWords(screen.failure.hint)),
        ...(considered ? ["", ...lines(considered)] : []),
      ];
    }
    case "confirm-install":
      return layoutText(screen.layout);
    case "confirm-wipe":
      return [
        ...erasedText(screen.machine, screen.layout, data.disks),
        // The plan's first line says it writes after the erase: on a machine with many disks
        // a line more here would push a written disk below the screen.
        "",
        ...layoutText(screen.layout),
      ];
    case "type-name": {
      const erased = screen.layout.disks.filter((d) => d.action === "erase-and-write");
      const what =
        erased.length > 0
          ? `To erase ${erased.map((d) => d.path).join(", ")} and reinstall,`
          : "To reinstall,";
      return [
        `${what} type the machine name, ${screen.machine}, and press Enter.`,
        "",
        `Machine name: ${screen.typed}_`,
        "",
        ...(screen.wrong !== undefined
          ? [`"${screen.wrong}" is not ${screen.machine}. Nothing was erased.`]
          : []),
      ];
    }
    case "type-cluster":
      return typeClusterBody(screen, data.disks);
    case "installing":
      return [
        `Installing ${screen.run.machine}${screen.run.wipe ? " (wipe and reinstall)" : ""}, release ${screen.run.release}. Leave the machine on.`,
        "",
        ...stepLines(screen.run, model.size.cols),
      ];
    case "installed":
      return screen.alreadyOn
        ? [
            `${screen.alreadyOn} already holds ${screen.run.machine} with release ${screen.run.release}: nothing was written.`,
            "Remove the stick and power cycle.",
          ]
        : [
            `Installed as ${screen.run.machine}. Remove the stick and power cycle.`,
            "",
            ...(screen.recoveryKey ? recoveryKeyLines(screen.recoveryKey) : []),
            ...stepLines(screen.run, model.size.cols),
          ];
    case "failed":
      return failedBody(screen, data);
    case "confirm-repair":
      return confirmRepairText(screen.decision);
    case "repair-refused":
      return repairRefusedText(screen.machine, screen.what, screen.hint);
    case "repairing":
      return repairingText(screen.run);
    case "repaired":
      return repairedText(screen.run);
    case "repair-failed":
      return repairFailedText(screen.run, screen.error, data);
    case "report":
      return screen.text === undefined ? ["Reading the hardware report."] : lines(screen.text);
    case "shell":
      return ["The shell runs. Type exit to come back."];
    case "power-off":
      return ["Powering off."];
    case "notice":
      return [...screen.lines];
  }
}

/** The lines right above the entries, never scrolled away: the question the entries answer. */
export function promptOf(screen: Screen): string[] {
  switch (screen.kind) {
    case "confirm-install":
      return [`Install as ${screen.machine}? Nothing is written until you choose Yes.`];
    case "confirm-wipe":
      return [`Erase and reinstall as ${screen.machine}? Nothing is erased until you choose Yes.`];
    case "confirm-repair":
      return [repairPrompt(screen.machine)];
    case "repair-failed":
      return ["The console holds here; nothing reboots."];
    case "failed":
      return [
        "The console holds here; nothing reboots. Correct the cause, then choose Retry:",
        "an installation is safe to repeat.",
      ];
    default:
      return [];
  }
}

/** The help line's parts (layout.ts adds the scroll keys when the text scrolls). */
export function helpOf(screen: Screen): string[] {
  switch (screen.kind) {
    case "main":
      return [MOVE, SELECT];
    case "type-name":
    case "type-cluster":
      return ["Type the name, then Enter", "Backspace: erase", "Esc: back"];
    case "installing":
      return ["Installing: the keys wait until it ends"];
    case "repairing":
      return ["Repairing: the keys wait until it ends"];
    case "reading":
    case "shell":
    case "power-off":
      return [];
    default:
      return [MOVE, SELECT, BACK];
  }
}

function mainBody(data: MenuData): string[] {
  const out: string[] = [];
  if (data.releaseProblem) out.push(`The release cannot be installed: ${data.releaseProblem}`, "");
  if (data.disksProblem) out.push(`The disks cannot be listed: ${data.disksProblem}`, "");
  if (data.disksReading) out.push("Reading the disks.", "");
  for (const w of data.warnings) out.push(`Warning: ${w}`);
  if (data.warnings.length > 0) out.push("");
  out.push("Choose an entry. The menu waits until you do.");
  return out;
}

// Exactly what wipe and reinstall erases: each liken disk and the install its claim names.
function erasedText(machine: string, layout: Layout, disks: readonly Disk[]): string[] {
  const erased = layout.disks.filter((d) => d.action === "erase-and-write");
  if (erased.length === 0) {
    return [
      `Wipe and reinstall as ${machine}: no disk holds a liken install, so nothing is erased.`,
    ];
  }
  const out = [
    `Wipe and reinstall as ${machine} ERASES ${erased.length === 1 ? "this disk" : "these disks"}:`,
  ];
  for (const planned of erased) {
    const claim = disks.find((d) => d.path === planned.path)?.claim;
    const who = [planned.model, planned.serial].filter(Boolean).join(" ");
    out.push(`  ${planned.path}  ${formatSizeShort(planned.size)}${who ? `  ${who}` : ""}`);
    out.push(
      claim
        ? `    ${claim.mirror ? "" : "the liken install of "}${claimOwnerBeside(claim)}, release ${claim.release}, installed ${utcMinute(claim.createdAt)}${claim.complete ? "" : " (partial)"}`
        : "    a liken install",
    );
  }
  return out;
}

// Another cluster's disks are that cluster's machines: say whose, and ask for its name.
function typeClusterBody(
  screen: Extract<Screen, { kind: "type-cluster" }>,
  disks: readonly Disk[],
): string[] {
  const theirs = disks.filter((d) => d.verdict === "liken" && d.claim?.cluster === screen.cluster);
  return [
    `These disks belong to another cluster, ${screen.cluster}:`,
    ...theirs.flatMap(({ path, size, claim }) =>
      claim
        ? [
            `  ${path}  ${formatSizeShort(size)}  ${claimOwnerBeside(claim)}, release ${claim.release}, installed ${utcMinute(claim.createdAt)}`,
          ]
        : [],
    ),
    "",
    `Wipe and reinstall as ${screen.machine} erases them too only if you type the cluster name, ${screen.cluster}, and press Enter.`,
    "",
    `Cluster name: ${screen.typed}_`,
    "",
    ...(screen.wrong !== undefined
      ? [`"${screen.wrong}" is not ${screen.cluster}. Nothing was erased.`]
      : []),
  ];
}

// Shown once, on this screen only: the install kept no copy, and nothing logs the screen.
function recoveryKeyLines(key: string): string[] {
  return [
    "The recovery key of this machine's encrypted disks, shown this once:",
    "",
    `    ${key}`,
    "",
    "Write it down and keep it with the cluster's secrets. The machine asks for it when its",
    "TPM will not open the disks (Secure Boot turned off, other keys, another machine).",
    "",
  ];
}

function failedBody(screen: Extract<Screen, { kind: "failed" }>, data: MenuData): string[] {
  const step = failedStep(screen.run);
  return [
    `${screen.run.wipe ? "Wipe and reinstall" : "Install"} as ${screen.run.machine} failed${step ? ` while ${step.what}` : ""}:`,
    screen.error,
    "",
    ...(data.disksProblem
      ? [`The disks cannot be listed: ${data.disksProblem}`]
      : lines(renderDisks(data.disks))),
    "",
    ...stepLines(screen.run, Number.POSITIVE_INFINITY),
  ];
}

/** One line per step with its state, and the slot write's bar under its step. */
export function stepLines(run: InstallRun, cols: number): string[] {
  const out: string[] = [];
  for (const s of run.steps) {
    out.push(`  ${s.state.padEnd(8)} ${s.what}`);
    if (s.step === "slot" && s.state !== "pending" && run.slot && run.slot.total > 0) {
      const { done, total, startedAt, at } = run.slot;
      const width = Math.max(10, Math.min(40, cols - 52));
      const speed = rate(done, at - startedAt);
      out.push(
        `           ${progressBar(done, total, width)} ${percent(done, total).padStart(4)}  ${formatSizeShort(done)} of ${formatSizeShort(total)}${speed ? `  ${speed}` : ""}`,
      );
    }
  }
  return out;
}

function lines(text: string): string[] {
  const out = text.split("\n");
  while (out.length > 0 && out[out.length - 1] === "") out.pop();
  return out;
}
