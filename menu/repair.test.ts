// The menu's repair of a mirror, without a terminal: the entry shown only where one member
// is here and the other is not, the confirmation naming the blank disk and its place, the
// progress, the done screen and the refusals, each frame fitting the console.
import { describe, expect, it } from "vitest";
import { mirrorCondition } from "../agent/mirror-condition.ts";
import type { Disk } from "../hardware/disks/index.ts";
import {
  disk,
  keys,
  likenDisk,
  manifestFrom,
  menuData,
  play,
  SIZE_80X24,
} from "../test/fixtures/menu.ts";
import { initModel } from "./model.ts";
import { planMachines } from "./plans.ts";
import { entriesOf } from "./screens.ts";
import type { MenuData, MenuEvent, Model } from "./types.ts";
import { frameOf } from "./view.ts";

const MIRROR = manifestFrom("test/fixtures/manifests/good/mirror.toml");
const MIB = 1024 * 1024;

const member = (path: string, place: 1 | 2, peer: string) =>
  likenDisk(path, { mirror: { member: place, of: 2, peer: { serial: peer } } });
const M1 = member("/dev/sda", 1, "QM0002");
const M2 = { ...member("/dev/sdb", 2, "QM0001"), serial: "QM0002" };
const BLANK = disk("/dev/sdc", { model: "QEMU HARDDISK", serial: "QM0003" });
const EXT4 = disk("/dev/sdc", {
  verdict: "foreign",
  reasons: ["signature:ext4@0x438", "nonzero-data:head"],
});

const data = (disks: readonly Disk[]): MenuData => menuData(disks, { manifest: MIRROR });

function screenText(model: Model): string {
  return frameOf({ ...model, size: { cols: 200, rows: 80 } }).lines.join("\n");
}

const labels = (model: Model) => entriesOf(model).map((e) => e.label);

function selectedLabel(model: Model): string | undefined {
  const f = frameOf(model);
  return f.highlight === undefined ? undefined : f.lines[f.highlight]?.slice(2);
}

// Down to the repair entry and Enter: the disks are read again, then the plan shows.
const REPAIR = keys("down", "down", "enter");

describe("the repair entry", () => {
  it("shows after the install entries when one member of the mirror is here and the other is not", () => {
    const model = initModel(data([M1, BLANK]), SIZE_80X24);
    expect(labels(model)).toEqual([
      "Install as leader-1",
      "Wipe and reinstall as leader-1",
      "Repair the mirror of leader-1",
      "Shell",
      "Power off",
    ]);
    // Shown with no blank disk too: choosing it says what to attach.
    expect(labels(initModel(data([M1, EXT4]), SIZE_80X24))).toContain(
      "Repair the mirror of leader-1",
    );
  });

  it("is not shown for a whole mirror, a machine on one disk, or a machine not installed", () => {
    const single = likenDisk("/dev/sda");
    for (const disks of [[M1, M2, BLANK], [single, BLANK], [BLANK], [M1, M2]]) {
      const shown = labels(initModel(data(disks), SIZE_80X24));
      expect(shown.filter((l) => l.startsWith("Repair"))).toEqual([]);
    }
  });

  it("is the entry the machine's status names when a member is missing", () => {
    const at = (n: 1 | 2, serial: string) => ({ member: n, serial, path: "", partUuids: {} });
    const { message } = mirrorCondition({
      booted: at(1, "QM0001"),
      peer: at(2, "QM0002"),
      machine: "leader-1",
      absent: ["liken-esp", "liken-a", "liken-b", "liken-journal", "liken-state"],
      failure: null,
    });
    const entry = labels(initModel(data([M1, BLANK]), SIZE_80X24)).find((l) =>
      l.startsWith("Repair"),
    );
    expect(message).toContain(`choose ${entry} on the stick's menu`);
  });

  it("is not shown for another cluster's mirror member", () => {
    const theirs = likenDisk("/dev/sda", {
      cluster: "othercluster",
      mirror: { member: 1, of: 2, peer: { serial: "QM0002" } },
    });
    expect(labels(initModel(data([theirs, BLANK]), SIZE_80X24))).not.toContain(
      "Repair the mirror of leader-1",
    );
  });
});

describe("repair the mirror", () => {
  it("reads the disks again, then names the blank disk, its place and the member beside it, starting on No", () => {
    const start = initModel(data([M1, BLANK]), SIZE_80X24);
    const reading = play(start, keys("down", "down")).model;
    const asked = play(reading, keys("enter"));
    expect(asked.model.screen.kind).toBe("confirm-repair");
    const text = screenText(asked.model);
    expect(text).toContain(
      "/dev/sdc (blank, 2.5 GiB, model QEMU HARDDISK, serial QM0003) becomes member 2 of the mirror of testcluster/leader-1 beside /dev/sda.",
    );
    expect(text).toContain(
      "/dev/sda (2.5 GiB, model QEMU HARDDISK, serial QM0001) holds mirror member 1 of 2 of testcluster/leader-1, release 1.0.0, installed 2025-03-01 10:20 UTC.",
    );
    expect(text).toContain("No other disk is written.");
    expect(text).toContain(
      "Repair the mirror of leader-1? Nothing is written until you choose Yes.",
    );
    expect(labels(asked.model)).toEqual(["No, back to the menu", "Yes, repair the mirror"]);
    expect(selectedLabel(asked.model)).toBe("No, back to the menu");
    expect(asked.effects).toEqual([]);
  });

  it("goes back to the menu, on its entry, with No, Esc or q, and writes nothing", () => {
    for (const back of [["enter"], ["escape"], ["q"]]) {
      const { model, effects } = play(data([M1, BLANK]), [...REPAIR, ...keys(...back)]);
      expect(model.screen.kind).toBe("main");
      expect(selectedLabel(model)).toBe("Repair the mirror of leader-1");
      expect(effects).toEqual([]);
    }
  });

  it("repairs on Yes, on exactly the two disks it named, and shows the repair's lines", () => {
    const { model, effects } = play(data([M1, BLANK]), [...REPAIR, ...keys("down", "enter")]);
    expect(effects).toEqual([
      { type: "repair", machine: "leader-1", survivor: "/dev/sda", target: "/dev/sdc" },
    ]);
    expect(screenText(model)).toContain(
      "Repairing the mirror of leader-1: /dev/sdc becomes member 2. Leave the machine on.",
    );
    expect(screenText(model)).toContain("Repairing: the keys wait until it ends");
    // It cannot be left part way.
    const held = play(model, keys("escape", "q", "enter", "down"));
    expect(held.model.screen).toEqual(model.screen);
    expect(held.effects).toEqual([]);
    const going = play(model, [
      line("liken-stick: /dev/sdc becomes member 2 of the mirror beside /dev/sda"),
      line("liken-stick: copying the ESP"),
      line("liken-stick: copying slot A"),
    ]).model;
    const text = screenText(going);
    expect(text).toContain("\n  /dev/sdc becomes member 2 of the mirror beside /dev/sda\n");
    expect(text).toContain("\n  copying the ESP\n  copying slot A\n");
    expect(text).not.toContain("liken-stick:");
  });

  it("ends with the mirror whole again, Power off first", () => {
    const repairing = play(data([M1, BLANK]), [...REPAIR, ...keys("down", "enter")]).model;
    const whole = { ...member("/dev/sdc", 2, "QM0001"), serial: "QM0003" };
    const done = play(repairing, [
      line("liken-stick: copying the state partition"),
      { type: "repair-done", data: data([M1, whole]) },
    ]).model;
    const text = screenText(done);
    expect(text).toContain(
      "The mirror of leader-1 is whole again. Remove the stick and power cycle.",
    );
    expect(text).toContain("  copying the state partition");
    expect(labels(done)).toEqual(["Power off", "Back to the menu"]);
    expect(play(done, keys("enter")).effects).toEqual([{ type: "power-off" }]);
    const back = play(done, keys("down", "enter")).model;
    expect(back.screen.kind).toBe("main");
    expect(labels(back)).not.toContain("Repair the mirror of leader-1");
  });

  it("refuses with what and what to do when no disk is blank, and writes nothing", () => {
    const { model, effects } = play(data([M1, EXT4]), REPAIR);
    expect(model.screen.kind).toBe("repair-refused");
    const text = screenText(model);
    expect(text).toContain("Repair the mirror of leader-1 cannot start.");
    expect(text).toContain(
      "No blank disk can take member 2 of the mirror of testcluster/leader-1: /dev/sdc foreign (signature:ext4@0x438, nonzero-data:head).",
    );
    expect(text).toContain(
      "Attach a blank disk at least as large as the surviving member; liken never writes a disk that holds data.",
    );
    expect(text).toContain("Nothing was written.");
    expect(labels(model)).toEqual(["Back to the menu"]);
    expect(effects).toEqual([]);
    expect(play(model, keys("enter")).model.screen.kind).toBe("main");
  });

  it("takes no blank disk too small for the member's system partitions", () => {
    const small = disk("/dev/sdc", { size: 512 * MIB });
    const plans = planMachines(
      [M1, small],
      MIRROR,
      { version: "1.0.0", rootfsSize: 260 * 1024 },
      () => "00000000-0000-4000-8000-000000000000",
      new Map([["/dev/sda", 841 * MIB]]),
    );
    const repair = plans["leader-1"]?.repair;
    expect(repair?.ok).toBe(false);
    expect(repair && !repair.ok && repair.what).toContain(
      "/dev/sdc is smaller than the mirror's system partitions (842 MiB)",
    );
  });

  it("shows the repair's own refusal (the disk changed since) as a refusal, and its failure with the disks", () => {
    const repairing = play(data([M1, BLANK]), [...REPAIR, ...keys("down", "enter")]).model;
    const now = data([M1, EXT4]);
    const refused = play(repairing, [
      {
        type: "repair-failed",
        error: "x",
        refused: {
          what: "/dev/sdc changed while the repair started: it reads foreign (signature:ext4@0x438)",
          hint: "check what else uses the disk, then run the repair again",
        },
        data: now,
      },
    ]).model;
    const text = screenText(refused);
    expect(text).toContain(
      "/dev/sdc changed while the repair started: it reads foreign (signature:ext4@0x438).",
    );
    expect(text).toContain("Check what else uses the disk, then choose Repair the mirror again.");
    expect(text).toContain("Nothing was written.");

    const failed = play(repairing, [
      line("liken-stick: copying slot A"),
      {
        type: "repair-failed",
        error:
          "slot A of /dev/sdc reads back with sha256 00, not 11 (check both disks' health (dmesg), then run the repair again)",
        data: now,
      },
    ]).model;
    const failure = screenText(failed);
    expect(failure).toContain("Repair the mirror of leader-1 failed:");
    expect(failure).toContain("then choose Repair the mirror again)");
    expect(failure).toContain("/dev/sda still boots the machine on its own.");
    expect(failure).toMatch(/\/dev\/sdc\s+2\.5 GiB\s+-\s+-\s+foreign/);
    expect(failure).toContain("  copying slot A");
    expect(failure).toContain("The console holds here; nothing reboots.");
    expect(labels(failed)).toEqual(["Back to the menu"]);
  });

  it("fits every repair screen in 80x24, in printable ASCII", () => {
    const base = data([M1, BLANK]);
    const repairing = play(base, [...REPAIR, ...keys("down", "enter")]).model;
    const lines = Array.from({ length: 12 }, (_, i) => line(`liken-stick: step ${i}`));
    const models = [
      initModel(base, SIZE_80X24),
      play(base, REPAIR).model,
      play(data([M1, EXT4]), REPAIR).model,
      play(repairing, lines).model,
      play(repairing, [...lines, { type: "repair-done", data: base }]).model,
      play(repairing, [...lines, { type: "repair-failed", error: "x ".repeat(90), data: base }])
        .model,
    ];
    for (const model of models) {
      const frame = frameOf(model);
      expect(frame.lines).toHaveLength(24);
      for (const l of frame.lines) {
        expect(l.length).toBeLessThan(80);
        expect(l).toMatch(/^[\x20-\x7e]*$/);
      }
    }
  });
});

function line(text: string): MenuEvent {
  return { type: "repair-line", line: text };
}
