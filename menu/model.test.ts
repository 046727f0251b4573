// The menu's state machine and its screens, without a terminal: every screen, every key
// path, and that every frame fits the console.
import { describe, expect, it } from "vitest";
import type { Disk } from "../hardware/disks/index.ts";
import { renderDisks } from "../hardware/disks/render.ts";
import type { Machine } from "../manifest/index.ts";
import {
  disk,
  keys,
  likenDisk,
  menuData,
  play,
  SIZE_80X24,
  SMALL,
  typed,
} from "../test/fixtures/menu.ts";
import { initModel, update } from "./model.ts";
import { entriesOf } from "./screens.ts";
import type { MenuData, MenuEvent, Model } from "./types.ts";
import { frameOf } from "./view.ts";

const BLANK = [disk("/dev/sda", { model: "QEMU HARDDISK", serial: "QM0001" })];
const EXT4 = [
  disk("/dev/sda", { verdict: "foreign", reasons: ["signature:ext4@0x438", "nonzero-data:head"] }),
];

// What the screen says, drawn wide enough that no line wraps (the 80x24 tests are below).
function screenText(model: Model): string {
  return frameOf({ ...model, size: { cols: 200, rows: 80 } }).lines.join("\n");
}

// The entries on the screen (each must show, in order, after the text).
function entryLabels(model: Model): string[] {
  const lines = frameOf(model).lines;
  const labels = entriesOf(model).map((e) => e.label);
  const shown = labels.filter((label) => lines.some((l) => l.slice(2) === label));
  return shown;
}

function selectedLabel(model: Model): string | undefined {
  const f = frameOf(model);
  return f.highlight === undefined ? undefined : f.lines[f.highlight]?.slice(2);
}

const stepEvent = (step: string, what: string, at = 0): MenuEvent => ({
  type: "install-event",
  event: { type: "step", step: step as "preflight", what },
  at,
});

describe("the main menu", () => {
  it("marks the machine whose match in the manifest is this hardware", () => {
    const model = initModel({ ...menuData(BLANK), matched: "worker-1" }, SIZE_80X24);
    expect(entryLabels(model).slice(0, 2)).toEqual([
      "Install as leader-1",
      "Install as worker-1   (this machine, by its match)",
    ]);
  });

  it("shows the cluster, the release, the machine, every entry and the keys", () => {
    const model = initModel(menuData(BLANK), SIZE_80X24);
    const lines = frameOf(model).lines;
    expect(lines[0]).toBe("liken stick   cluster testcluster   release 1.0.0");
    expect(lines[1]).toBe("Machine: QEMU Standard PC (Q35 + ICH9, 2009)   serial unknown");
    expect(entryLabels(model)).toEqual([
      "Install as leader-1",
      "Install as worker-1",
      "Wipe and reinstall as leader-1",
      "Wipe and reinstall as worker-1",
      "Shell",
      "Power off",
    ]);
    expect(lines[23]).toBe("Arrows or j/k: move   Enter: select");
    expect(selectedLabel(model)).toBe("Install as leader-1");
  });

  it("lists the hardware report only when the command has it, and the shell only where it works", () => {
    const withReport = initModel(menuData(BLANK, { hwreport: true, shell: false }), SIZE_80X24);
    expect(entryLabels(withReport).slice(4)).toEqual(["Hardware report", "Power off"]);
  });

  it("says unknown for what the firmware does not say", () => {
    const data: MenuData = {
      ...menuData(BLANK),
      identity: { vendor: "unknown", model: "unknown", serial: "unknown" },
    };
    expect(frameOf(initModel(data, SIZE_80X24)).lines[1]).toBe(
      "Machine: model unknown   serial unknown",
    );
  });

  it("moves with arrows and j/k, stops at the ends, and Home/End jump", () => {
    const data = menuData(BLANK);
    expect(selectedLabel(play(data, keys("down", "j")).model)).toBe(
      "Wipe and reinstall as leader-1",
    );
    expect(selectedLabel(play(data, keys("down", "k", "up", "up")).model)).toBe(
      "Install as leader-1",
    );
    expect(selectedLabel(play(data, keys("end", "down", "j")).model)).toBe("Power off");
    expect(selectedLabel(play(data, keys("end", "home")).model)).toBe("Install as leader-1");
  });

  it("has nowhere to go back to: Esc and q leave it as it is", () => {
    const data = menuData(BLANK);
    const { model, effects } = play(data, keys("down", "escape", "q"));
    expect(model.screen.kind).toBe("main");
    expect(selectedLabel(model)).toBe("Install as worker-1");
    expect(effects).toEqual([]);
  });

  it("ignores keys it does not know", () => {
    const data = menuData(BLANK);
    const { model, effects } = play(data, keys("x", "7", "backspace", "redraw"));
    expect(model).toEqual(initModel(data, SIZE_80X24));
    expect(effects).toEqual([]);
  });

  it("says the machine is installed when a disk holds a complete install", () => {
    const model = initModel(menuData([likenDisk("/dev/sda")]), SIZE_80X24);
    expect(screenText(model)).toContain(
      "This machine is installed as leader-1 (release 1.0.0). Remove the stick and power cycle.",
    );
    const partial = initModel(menuData([likenDisk("/dev/sda", { complete: false })]), SIZE_80X24);
    expect(screenText(partial)).not.toContain("This machine is installed");
  });

  it("shows the manifest's warnings and a release that cannot be installed", () => {
    const data: MenuData = {
      ...menuData(BLANK),
      warnings: ['small.toml:11:8: layout.slot "256MiB" is smaller than 1GiB'],
      releaseProblem: "release /payload/release is not usable: it has no release.toml",
    };
    const text = screenText(initModel(data, SIZE_80X24));
    expect(text).toContain("The release cannot be installed: release /payload/release is not");
    expect(text).toContain('Warning: small.toml:11:8: layout.slot "256MiB" is smaller than 1GiB');
  });
});

describe("install as", () => {
  it("reads the disks again before it plans: another console may have installed", () => {
    const step = update(initModel(menuData(BLANK), SIZE_80X24), keys("enter")[0] as MenuEvent);
    expect(step.effects).toEqual([{ type: "refresh" }]);
    expect(screenText(step.model)).toContain("Reading the disks.");
    expect(play(step.model, keys("escape", "enter", "q")).model.screen.kind).toBe("reading");
    const now = menuData([likenDisk("/dev/sda")]);
    const shown = update(step.model, { type: "refreshed", data: now }).model;
    expect(shown.screen.kind).toBe("refused");
    expect(screenText(shown)).toContain("This machine is installed as leader-1");
  });

  it("shows the planned layout and asks, starting on No", () => {
    const { model } = play(menuData(BLANK), keys("enter"));
    expect(model.screen.kind).toBe("confirm-install");
    const text = screenText(model);
    expect(text).toContain("Install leader-1 of cluster testcluster, release 1.0.0.");
    expect(text).toContain(
      "/dev/sda  2.5 GiB  QEMU HARDDISK QM0001  system disk, written from blank",
    );
    expect(text).toContain("Install as leader-1? Nothing is written until you choose Yes.");
    expect(entryLabels(model)).toEqual(["No, back to the menu", "Yes, install as leader-1"]);
    expect(selectedLabel(model)).toBe("No, back to the menu");
  });

  it("names each member of a mirrored system disk by its place", () => {
    const machines = SMALL.machines.map((m) =>
      m.name === "leader-1" ? { ...m, system_disk: { mirror: true } } : m,
    );
    const disks = [
      BLANK[0] as Disk,
      disk("/dev/sdb", { model: "QEMU HARDDISK", serial: "QM0002" }),
    ];
    const data = menuData(disks, { manifest: { ...SMALL, machines } });
    const text = screenText(play(data, keys("enter")).model);
    expect(text).toMatch(
      /\n {2}\/dev\/sda {2}2\.5 GiB {2}system disk, mirror member 1 of 2, .*written from blank\n/,
    );
    expect(text).toMatch(
      /\n {2}\/dev\/sdb {2}2\.5 GiB {2}system disk, mirror member 2 of 2, .*written from blank\n/,
    );
  });

  it("goes back to the menu, on the same entry, with No, Esc or q", () => {
    for (const back of [["enter"], ["escape"], ["q"]]) {
      const { model, effects } = play(menuData(BLANK), keys("down", "enter", ...back));
      expect(model.screen.kind).toBe("main");
      expect(selectedLabel(model)).toBe("Install as worker-1");
      expect(effects).toEqual([]);
    }
  });

  it("installs on Yes", () => {
    const { model, effects } = play(menuData(BLANK), keys("enter", "down", "enter"));
    expect(model.screen.kind).toBe("installing");
    expect(effects).toEqual([
      {
        type: "install",
        machine: "leader-1",
        wipe: false,
        wipeClusters: [],
        layout: expect.objectContaining({ machine: "leader-1", wipe: false }),
      },
    ]);
  });

  it("says why when no plan can be made, and writes nothing", () => {
    const { model, effects } = play(menuData(EXT4), keys("enter"));
    expect(model.screen.kind).toBe("refused");
    const text = screenText(model);
    expect(text).toContain("Install as leader-1 cannot start.");
    expect(text).toContain("No blank disk: every disk holds data or cannot be a target.");
    expect(text).toContain(
      "Attach a blank disk; liken never writes a disk that holds data it did not write.",
    );
    expect(text).toContain("/dev/sda (foreign): holds data liken did not write");
    expect(entryLabels(model)).toEqual(["Back to the menu"]);
    expect(play(model, keys("enter")).model.screen.kind).toBe("main");
    expect(effects).toEqual([]);
  });

  it("sends a machine that is already installed to wipe and reinstall", () => {
    const { model } = play(menuData([likenDisk("/dev/sda")]), keys("enter"));
    const text = screenText(model);
    expect(text).toContain("No blank disk: /dev/sda holds the liken install of");
    expect(text).toContain("Use wipe and reinstall as leader-1 to replace it.");
  });
});

describe("progress", () => {
  const installing = () => play(menuData(BLANK), keys("enter", "down", "enter")).model;

  it("lists every step pending before the installer starts", () => {
    const text = screenText(installing());
    expect(text).toContain("Installing leader-1, release 1.0.0. Leave the machine on.");
    expect(text).toContain("  pending  verifying the release");
    expect(text).toContain("  pending  writing release 1.0.0 into slot A");
    expect(text).toContain("  pending  marking the install complete");
    expect(text).toContain("Installing: the keys wait until it ends");
  });

  it("marks the running step and the steps done, and draws the slot write with bytes and rate", () => {
    const MIB = 1024 * 1024;
    const { model } = play(installing(), [
      stepEvent("preflight", "verifying the release", 0),
      stepEvent("plan", "planning the layout", 10),
      stepEvent("slot", "writing release 1.0.0 into slot A", 1000),
      {
        type: "install-event",
        event: { type: "progress", step: "slot", done: 64 * MIB, total: 256 * MIB },
        at: 3000,
      },
    ]);
    const text = screenText(model);
    expect(text).toContain("  done     verifying the release");
    expect(text).toContain("  done     planning the layout");
    expect(text).toContain("  pending  locking the target disks");
    expect(text).toContain("  running  writing release 1.0.0 into slot A");
    expect(text).toContain(
      "           [##########------------------------------]  25%  64 MiB of 256 MiB  32 MiB/s",
    );
    // At 80 columns the bar is shorter and the line still fits.
    expect(frameOf(model).lines).toContain(
      "           [#######---------------------]  25%  64 MiB of 256 MiB  32 MiB/s",
    );
  });

  it("takes no key while it runs: the install cannot be left", () => {
    const start = installing();
    const { model, effects } = play(start, keys("escape", "q", "enter", "down"));
    expect(model.screen).toEqual(start.screen);
    expect(effects).toEqual([]);
  });

  it("ends with the success text, and Power off", () => {
    const done = play(installing(), [
      stepEvent("preflight", "verifying the release"),
      stepEvent("complete", "marking the install complete"),
      { type: "install-done", data: menuData([likenDisk("/dev/sda")]) },
    ]).model;
    const text = screenText(done);
    expect(text).toContain("Installed as leader-1. Remove the stick and power cycle.");
    expect(text).toContain("  done     marking the install complete");
    expect(text).toContain("This machine is installed as leader-1");
    expect(entryLabels(done)).toEqual(["Power off", "Back to the menu"]);
    expect(play(done, keys("enter")).effects).toEqual([{ type: "power-off" }]);
    expect(play(done, keys("down", "enter")).model.screen.kind).toBe("main");
  });

  it("shows an encrypted install's recovery key on the installed screen, and on no other", () => {
    const key = "cbdefghi-jklnrtuv-cbdefghi-jklnrtuv-cbdefghi-jklnrtuv-cbdefghi-jklnrtuv";
    const done = play(installing(), [
      { type: "install-done", recoveryKey: key, data: menuData([likenDisk("/dev/sda")]) },
    ]).model;
    expect(screenText(done)).toContain(
      "The recovery key of this machine's encrypted disks, shown this once:",
    );
    expect(screenText(done)).toContain(`    ${key}`);
    expect(screenText(play(done, keys("down", "enter")).model)).not.toContain(key);
  });

  it("says so when the disk already held the install", () => {
    const done = play(installing(), [
      { type: "install-done", alreadyOn: "/dev/sda", data: menuData([likenDisk("/dev/sda")]) },
    ]).model;
    expect(screenText(done)).toContain(
      "/dev/sda already holds leader-1 with release 1.0.0: nothing was written.",
    );
  });
});

describe("a failed install", () => {
  const ERROR =
    "release /r is not usable: vmlinuz has sha256 0f0f, not 1a1a (build it again with liken-stick release)";
  const failed = () =>
    play(menuData(BLANK), [
      ...keys("enter", "down", "enter"),
      stepEvent("preflight", "verifying the release"),
      { type: "install-failed", error: ERROR, data: menuData(BLANK) },
    ]).model;

  it("shows the error, the step, the disks with their verdicts, and holds", () => {
    const model = failed();
    const text = screenText(model);
    expect(text).toContain("Install as leader-1 failed while verifying the release:");
    expect(text).toContain(ERROR);
    expect(text).toContain(renderDisks(BLANK).trimEnd());
    expect(text).toContain("  failed   verifying the release");
    expect(text).toContain("The console holds here; nothing reboots.");
    expect(entryLabels(model)).toEqual(["Retry", "Back to the menu"]);
    expect(selectedLabel(model)).toBe("Retry");
  });

  it("Retry runs the same install again", () => {
    const { model, effects } = play(failed(), keys("enter"));
    expect(model.screen.kind).toBe("installing");
    expect(screenText(model)).toContain("  pending  verifying the release");
    expect(effects).toEqual([
      {
        type: "install",
        machine: "leader-1",
        wipe: false,
        wipeClusters: [],
        layout: expect.objectContaining({ machine: "leader-1", wipe: false }),
      },
    ]);
  });

  it("Back and Esc return to the menu; nothing powers off", () => {
    for (const k of [["down", "enter"], ["escape"], ["q"]]) {
      const { model, effects } = play(failed(), keys(...k));
      expect(model.screen.kind).toBe("main");
      expect(effects).toEqual([]);
    }
  });
});

describe("wipe and reinstall as", () => {
  const data = menuData([likenDisk("/dev/sda"), disk("/dev/sdb")]);
  const confirm = () => play(data, keys("down", "down", "enter")).model;

  it("shows exactly what it erases, and asks, starting on No", () => {
    const model = confirm();
    expect(model.screen.kind).toBe("confirm-wipe");
    const text = screenText(model);
    expect(text).toContain("Wipe and reinstall as leader-1 ERASES this disk:");
    expect(text).toContain("  /dev/sda  2.5 GiB  QEMU HARDDISK QM0001");
    expect(text).toContain(
      "    the liken install of testcluster/leader-1, release 1.0.0, installed 2025-03-01 10:20 UTC",
    );
    expect(text).not.toContain("  /dev/sdb  2.5 GiB\n");
    expect(text).toContain(
      "Erase and reinstall as leader-1? Nothing is erased until you choose Yes.",
    );
    expect(selectedLabel(model)).toBe("No, back to the menu");
    expect(play(model, keys("enter")).model.screen.kind).toBe("main");
  });

  it("asks for the machine name, and refuses a wrong one", () => {
    const asked = play(confirm(), keys("down", "enter")).model;
    expect(asked.screen.kind).toBe("type-name");
    expect(screenText(asked)).toContain(
      "To erase /dev/sda and reinstall, type the machine name, leader-1, and press Enter.",
    );
    // q, j and k are letters here, not keys.
    const { model, effects } = play(asked, [...typed("worker-1q"), ...keys("enter")]);
    expect(model.screen.kind).toBe("type-name");
    expect(screenText(model)).toContain('"worker-1q" is not leader-1. Nothing was erased.');
    expect(screenText(model)).toContain("Machine name: _");
    expect(effects).toEqual([]);
    expect(frameOf(model).lines[frameOf(model).cursor.row]).toBe("Machine name: _");
  });

  it("goes on with the right name, and erases nothing on Esc", () => {
    const asked = play(confirm(), keys("down", "enter")).model;
    const right = play(asked, [...typed("leader-1x"), ...keys("backspace", "enter")]);
    expect(right.model.screen.kind).toBe("installing");
    expect(right.effects).toEqual([
      {
        type: "install",
        machine: "leader-1",
        wipe: true,
        wipeClusters: [],
        layout: expect.objectContaining({ machine: "leader-1", wipe: true }),
      },
    ]);
    expect(screenText(right.model)).toContain("  pending  erasing the liken install on /dev/sda");
    const back = play(asked, [...typed("leader-1"), ...keys("escape")]);
    expect(back.model.screen.kind).toBe("confirm-wipe");
    expect(selectedLabel(back.model)).toBe("No, back to the menu");
    expect(back.effects).toEqual([]);
  });

  it("leaves another cluster's disk alone unless that cluster's name is typed", () => {
    // The machine moves from another cluster: its only disk is that cluster's worker-9.
    const other = likenDisk("/dev/sdc", { cluster: "othercluster", machine: "worker-9" });
    const wipe = play(menuData([other]), keys("down", "down", "enter")).model;
    expect(wipe.screen.kind).toBe("refused");
    expect(screenText(wipe)).toContain("another cluster");
    expect(entryLabels(wipe)).toEqual([
      "Back to the menu",
      "Also erase cluster othercluster's disks",
    ]);
    const ask = play(wipe, keys("down", "enter")).model;
    expect(ask.screen.kind).toBe("type-cluster");
    const text = screenText(ask);
    expect(text).toContain("These disks belong to another cluster, othercluster:");
    expect(text).toContain("  /dev/sdc  2.5 GiB  othercluster/worker-9, release 1.0.0");
    expect(frameOf(ask).lines[frameOf(ask).cursor.row]).toBe("Cluster name: _");
    // The machine's name, or this cluster's, is not the other cluster's.
    const wrong = play(ask, [...typed("testcluster"), ...keys("enter")]);
    expect(wrong.model.screen.kind).toBe("type-cluster");
    expect(screenText(wrong.model)).toContain(
      '"testcluster" is not othercluster. Nothing was erased.',
    );
    expect(wrong.effects).toEqual([]);
    // The right name: the confirmation of a wipe that erases it, the machine name, the install.
    const right = play(ask, [...typed("othercluster"), ...keys("enter")]).model;
    expect(right.screen.kind).toBe("confirm-wipe");
    expect(screenText(right)).toContain("    the liken install of othercluster/worker-9");
    expect(entryLabels(right)).toEqual(["No, back to the menu", "Yes, erase and reinstall"]);
    const done = play(right, [...keys("down", "enter"), ...typed("leader-1"), ...keys("enter")]);
    expect(done.effects).toEqual([
      expect.objectContaining({ type: "install", wipe: true, wipeClusters: ["othercluster"] }),
    ]);
    // Esc on the cluster's name goes back to the plain wipe, which leaves the disk alone.
    expect(play(ask, keys("escape")).model.screen.kind).toBe("refused");
  });

  it("does not offer another cluster's disk that the wipe would not use", () => {
    const other = likenDisk("/dev/sdc", { cluster: "othercluster", machine: "worker-9" });
    const wipe = play(menuData([likenDisk("/dev/sda"), other]), keys("down", "down", "enter"));
    expect(entryLabels(wipe.model)).toEqual(["No, back to the menu", "Yes, erase and reinstall"]);
  });

  it("names a mirror member it erases, and the disk beside it", () => {
    const first = likenDisk("/dev/sda", {
      mirror: { member: 1, of: 2, peer: { serial: "QM0002" } },
    });
    const second = {
      ...likenDisk("/dev/sdb", { mirror: { member: 2, of: 2, peer: { serial: "QM0001" } } }),
      serial: "QM0002",
    };
    const model = play(menuData([first, second]), keys("down", "down", "enter")).model;
    expect(model.screen.kind).toBe("confirm-wipe");
    expect(screenText(model)).toContain(
      "  /dev/sda  2.5 GiB  QEMU HARDDISK QM0001\n    mirror member 1 of 2 of testcluster/leader-1 beside QM0002, release 1.0.0, installed 2025-03-01 10:20 UTC",
    );
  });

  it("names another cluster's mirror members when it asks for that cluster's name", () => {
    const member = (path: string, place: 1 | 2, serial: string, peer: string) => ({
      ...likenDisk(path, {
        cluster: "othercluster",
        machine: "worker-9",
        mirror: { member: place, of: 2, peer: { serial: peer } },
      }),
      serial,
    });
    const others = [
      member("/dev/sdc", 1, "QM0003", "QM0004"),
      member("/dev/sdd", 2, "QM0004", "QM0003"),
    ];
    const wipe = play(menuData(others), keys("down", "down", "enter")).model;
    const ask = play(wipe, keys("down", "enter")).model;
    expect(ask.screen.kind).toBe("type-cluster");
    const text = screenText(ask);
    expect(text).toContain(
      "  /dev/sdc  2.5 GiB  mirror member 1 of 2 of othercluster/worker-9 beside QM0004, release 1.0.0, installed 2025-03-01 10:20 UTC",
    );
    expect(text).toContain(
      "  /dev/sdd  2.5 GiB  mirror member 2 of 2 of othercluster/worker-9 beside QM0003, release 1.0.0, installed 2025-03-01 10:20 UTC",
    );
  });

  it("refuses when no disk can be written", () => {
    const { model } = play(menuData(EXT4), keys("down", "down", "enter"));
    expect(screenText(model)).toContain("Wipe and reinstall as leader-1 cannot start.");
  });
});

describe("the other entries", () => {
  it("runs the hardware report and shows it", () => {
    const data = menuData(BLANK, { hwreport: true });
    const asked = play(data, keys("end", "up", "up", "enter"));
    expect(asked.effects).toEqual([{ type: "hwreport" }]);
    expect(screenText(asked.model)).toContain("Reading the hardware report.");
    const shown = play(asked.model, [{ type: "report", text: "System\n  vendor QEMU\n" }]).model;
    expect(screenText(shown)).toContain("System\n  vendor QEMU");
    const back = play(shown, keys("q")).model;
    expect(back.screen.kind).toBe("main");
    expect(selectedLabel(back)).toBe("Hardware report");
  });

  it("lends the terminal to a shell and comes back to the menu after it", () => {
    const data = menuData(BLANK);
    const { model, effects } = play(data, keys("end", "up", "enter"));
    expect(effects).toEqual([{ type: "shell" }]);
    expect(model.screen.kind).toBe("shell");
    expect(play(model, keys("enter", "q")).model.screen.kind).toBe("shell");
    const back = play(model, [{ type: "refreshed", data }]).model;
    expect(back.screen.kind).toBe("main");
    expect(selectedLabel(back)).toBe("Shell");
  });

  it("asks to power off", () => {
    const { model, effects } = play(menuData(BLANK), keys("end", "enter"));
    expect(effects).toEqual([{ type: "power-off" }]);
    expect(screenText(model)).toContain("Powering off.");
    const notice = play(model, [{ type: "notice", lines: ["The machine could not power off:"] }]);
    expect(screenText(notice.model)).toContain("The machine could not power off:");
    expect(play(notice.model, keys("enter")).model.screen.kind).toBe("main");
  });
});

describe("the console", () => {
  const many: Machine[] = Array.from({ length: 20 }, (_, i) => ({
    ...(SMALL.machines[0] as Machine),
    name: `machine-${String(i + 1).padStart(2, "0")}`,
  }));
  const big = { ...SMALL, machines: many };

  // One model per screen, with the most text each can have.
  function everyScreen(size: { cols: number; rows: number }): Model[] {
    const data = menuData([
      likenDisk("/dev/sda"),
      disk("/dev/sdb"),
      ...EXT4.map((d) => ({ ...d, path: "/dev/sdc" })),
    ]);
    const at = (m: Model) => ({ ...m, size });
    const base = initModel(data, size);
    const models = [
      base,
      play(base, keys("enter")).model,
      play(base, keys("down", "down", "enter")).model,
      play(base, keys("down", "down", "enter", "down", "enter")).model,
      play(base, [
        ...keys("down", "down", "enter", "down", "enter"),
        ...typed("x"),
        ...keys("enter"),
      ]).model,
      play(base, [
        ...keys("down", "down", "enter", "down", "enter"),
        ...typed("leader-1"),
        ...keys("enter"),
      ]).model,
      play(initModel(menuData(BLANK), size), keys("enter", "down", "enter")).model,
      initModel(menuData(BLANK, { manifest: big }), size),
      play(initModel(menuData(BLANK, { manifest: big }), size), keys("end")).model,
    ];
    const installing = models[6] as Model;
    models.push(
      play(installing, [{ type: "install-failed", error: "x ".repeat(100), data }]).model,
      play(installing, [{ type: "install-done", data }]).model,
    );
    return models.map(at);
  }

  it.each([
    [80, 24],
    [120, 40],
    [100, 30],
  ])("every screen fits %ix%i exactly, in printable ASCII", (cols, rows) => {
    for (const model of everyScreen({ cols, rows })) {
      const frame = frameOf(model);
      expect(frame.lines).toHaveLength(rows);
      for (const line of frame.lines) {
        expect(line.length).toBeLessThan(cols);
        expect(line).toMatch(/^[\x20-\x7e]*$/);
      }
      expect(frame.cursor.row).toBeLessThan(rows);
    }
  });

  it("keeps the selected entry in view when the entries do not fit", () => {
    const data = menuData(BLANK, { manifest: big });
    for (const n of [0, 10, 25, 39, 41]) {
      const model = play(data, keys(...Array<string>(n).fill("down"))).model;
      const f = frameOf(model);
      expect(f.highlight).toBeDefined();
      expect(f.lines[f.highlight as number]?.startsWith("> ")).toBe(true);
    }
    const text = frameOf(play(data, keys("down")).model).lines.join("\n");
    expect(text).toMatch(/-- entries 1-\d+ of 42 --/);
  });

  it("scrolls long text with PgUp/PgDn, Space and b", () => {
    const data = menuData([likenDisk("/dev/sda"), disk("/dev/sdb")]);
    const model = play(data, keys("down", "down", "enter")).model;
    expect(frameOf(model).lines.join("\n")).toContain("-- lines 1-");
    const down = play(model, keys("pagedown")).model;
    expect(down.scroll).toBeGreaterThan(0);
    expect(play(model, keys(" ")).model.scroll).toBe(down.scroll);
    expect(play(down, keys("b")).model.scroll).toBe(0);
    expect(play(down, keys("pagedown", "pagedown", "pagedown")).model.scroll).toBe(
      play(down, keys("pagedown")).model.scroll,
    );
  });

  it("redraws to a new size", () => {
    const model = update(initModel(menuData(BLANK), SIZE_80X24), {
      type: "resize",
      size: { cols: 120, rows: 40 },
    }).model;
    const f = frameOf(model);
    expect(f.lines).toHaveLength(40);
    expect(f.lines[2]).toBe("-".repeat(119));
  });

  it("shows no control characters that came with the data", () => {
    const data: MenuData = {
      ...menuData(BLANK),
      identity: { vendor: "Evil\x1b[2J", model: "Box\u00e9", serial: "S\x07N" },
    };
    expect(frameOf(initModel(data, SIZE_80X24)).lines[1]).toBe(
      "Machine: Evil?[2J Box?   serial S?N",
    );
  });
});
