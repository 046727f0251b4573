// The confirmations on a machine with 24 disks (a JBOD): the disks written, and the question,
// must show on an 80x24 console without scrolling, each written disk told from its twins.
import { describe, expect, it } from "vitest";
import type { Disk } from "../hardware/disks/index.ts";
import { disk, keys, likenDisk, menuData, play, SIZE_80X24 } from "../test/fixtures/menu.ts";
import type { Model, Size } from "./types.ts";
import { frameOf } from "./view.ts";

const GIB = 1024 ** 3;
const SIZES: readonly Size[] = [SIZE_80X24, { cols: 100, rows: 30 }];
// Every disk the same model: only the serial and the WWN tell them apart.
const MODEL = "ST4000NM0035-1V4107";

// 24 SAS disks: sdh (small, so the role "data" needs a second disk) and sdp are written,
// sdu is blank but not needed, sdd and sdl are ineligible, the other 19 hold data.
function jbod(): Disk[] {
  return [..."abcdefghijklmnopqrstuvwx"].map((letter, i) => {
    const n = String(i).padStart(4, "0");
    const path = `/dev/sd${letter}`;
    const id = { transport: "sas", model: MODEL, serial: `ZC1A${n}`, wwn: `0x5000c500a1b2${n}` };
    if (letter === "h") return disk(path, { ...id, size: 1.5 * GIB });
    if (letter === "p" || letter === "u") return disk(path, { ...id, size: 4 * GIB });
    if (letter === "d" || letter === "l")
      return disk(path, { ...id, verdict: "ineligible", reasons: ["removable"] });
    return disk(path, {
      ...id,
      verdict: "foreign",
      reasons: ["partition-table:gpt", "signature:xfs@0x100000"],
    });
  });
}

const SYSTEM = "  /dev/sdh  1.5 GiB  system disk, role scratch, written from blank";
const SYSTEM_ID = `    model ${MODEL}  serial ZC1A0007  wwn 0x5000c500a1b20007`;
const STORAGE = "  /dev/sdp  4 GiB  storage disk, role data, written from blank";
const STORAGE_ID = `    model ${MODEL}  serial ZC1A0015  wwn 0x5000c500a1b20015`;
const LEFT_OUT = "Left out: 22 disks (19 foreign, 2 ineligible, 1 blank), each with why below.";

function confirmInstall(disks: readonly Disk[], size: Size): Model {
  return { ...play(menuData(disks), keys("enter")).model, size };
}

// Everything the screen's text holds, as if the console were tall enough.
function wholeText(model: Model): string[] {
  return [...frameOf({ ...model, size: { cols: model.size.cols, rows: 200 } }).lines];
}

describe("the confirmation on a machine with 24 disks", () => {
  it.each(SIZES)("shows every written disk, the rest counted, and the question at %o", (size) => {
    const model = confirmInstall(jbod(), size);
    expect(model.screen.kind).toBe("confirm-install");
    const lines = frameOf(model).lines;
    expect(lines).toHaveLength(size.rows);
    for (const line of lines) expect(line.length).toBeLessThan(size.cols);
    const at = (text: string) => lines.indexOf(text);
    expect(at("It writes 2 disks:")).toBeGreaterThan(0);
    expect(lines.slice(at("It writes 2 disks:") + 1, at(LEFT_OUT) + 1)).toEqual([
      SYSTEM,
      SYSTEM_ID,
      STORAGE,
      STORAGE_ID,
      LEFT_OUT,
    ]);
    expect(lines.slice(-4)).toEqual([
      "Install as leader-1? Nothing is written until you choose Yes.",
      "> No, back to the menu",
      "  Yes, install as leader-1",
      "Arrows or j/k: move   Enter: select   Esc or q: back   PgUp/PgDn: scroll",
    ]);
  });

  it("lists the partitions of the written disks, then each disk left out with why, by verdict", () => {
    const text = wholeText(confirmInstall(jbod(), SIZE_80X24));
    const tables = text.indexOf("  #  LABEL          START    SIZE     CONTENT");
    const leftOut = text.indexOf("Left out:");
    expect(tables).toBeGreaterThan(text.indexOf(LEFT_OUT));
    expect(leftOut).toBeGreaterThan(
      text.lastIndexOf("  1  liken-data  1 MiB  1 GiB  storage role data"),
    );
    const listed = text.slice(leftOut + 1).filter((l) => l.startsWith("  /dev/"));
    expect(listed).toHaveLength(22);
    expect(
      listed.slice(0, 19).every((l) => l.includes("(foreign): holds data liken did not")),
    ).toBe(true);
    expect(listed.slice(19)).toEqual([
      "  /dev/sdd (ineligible): cannot be a target (removable)",
      "  /dev/sdl (ineligible): cannot be a target (removable)",
      "  /dev/sdu (blank): not needed: every role fits on the disks above",
    ]);
  });

  it("tells twin disks apart by serial, by WWN when there is no serial, and says when nothing does", () => {
    const twin = { transport: "nvme", model: "SAMSUNG MZQL23T8HCLS-00A07", size: 1.5 * GIB };
    const disks = [
      disk("/dev/nvme0n1", { ...twin, serial: "S64HNE0R100001", kind: "block" }),
      disk("/dev/nvme1n1", { ...twin, serial: "S64HNE0R100002", kind: "block" }),
    ];
    const lines = frameOf(confirmInstall(disks, SIZE_80X24)).lines;
    expect(lines).toContain("    model SAMSUNG MZQL23T8HCLS-00A07  serial S64HNE0R100001");
    expect(lines).toContain("    model SAMSUNG MZQL23T8HCLS-00A07  serial S64HNE0R100002");

    const byWwn = disks.map(({ serial: _, ...d }, i) => ({ ...d, wwn: `eui.00253885110${i}` }));
    expect(frameOf(confirmInstall(byWwn, SIZE_80X24)).lines).toContain(
      "    model SAMSUNG MZQL23T8HCLS-00A07  wwn eui.002538851101",
    );

    const unknown = [
      disk("/dev/sdb", { kind: "block", size: 1.5 * GIB }),
      disk("/dev/sdc", { kind: "block" }),
    ];
    expect(frameOf(confirmInstall(unknown, SIZE_80X24)).lines).toContain(
      "    no model, serial or WWN known",
    );
  });

  it("shows what a wipe erases and the disks it writes, with the question, at 80x24", () => {
    // sdh holds this machine's install; a wipe takes it, and sdp for the role "data".
    const claim = likenDisk("/dev/sdh").claim;
    const disks = jbod().map((d) =>
      d.path === "/dev/sdh" ? { ...d, verdict: "liken" as const, claim } : d,
    );
    const model = {
      ...play(menuData(disks), keys("down", "down", "enter")).model,
      size: SIZE_80X24,
    };
    expect(model.screen.kind).toBe("confirm-wipe");
    const lines = frameOf(model).lines;
    expect(lines).toContain("Wipe and reinstall as leader-1 ERASES this disk:");
    expect(lines).toContain("  /dev/sdh  1.5 GiB  system disk, role scratch, ERASED, then written");
    expect(lines).toContain(SYSTEM_ID);
    expect(lines).toContain(STORAGE);
    expect(lines).toContain(STORAGE_ID);
    expect(lines).toContain(
      "Erase and reinstall as leader-1? Nothing is erased until you choose Yes.",
    );
    expect(lines).toContain("> No, back to the menu");
  });
});
