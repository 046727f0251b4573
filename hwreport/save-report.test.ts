// The menu's copy of the hardware report on the payload: where it goes and what it holds.
import { mkdtemp, readdir, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { reportFileName, saveReport } from "./save-report.ts";
import type { HwReport } from "./types.ts";

const dirs: string[] = [];
afterAll(async () => {
  for (const d of dirs) await rm(d, { recursive: true, force: true });
});

const machine = (serial: string | null, uuid: string | null, more = {}) =>
  ({ system: { serial, uuid }, ...more }) as unknown as HwReport;

describe("saving the report on the stick", () => {
  it("writes reports/<serial>.json, making the folder, with saved set to its path", async () => {
    const payload = await mkdtemp(join(tmpdir(), "save-report-"));
    dirs.push(payload);
    const dir = join(payload, "reports");
    const saved = await saveReport(machine("7XK2/Q93", "u", { disks: [] }), dir);
    expect(saved).toBe(join(dir, "7XK2_Q93.json"));
    expect(JSON.parse(await readFile(saved, "utf8"))).toEqual({
      system: { serial: "7XK2/Q93", uuid: "u" },
      disks: [],
      saved,
    });
  });

  it("replaces the earlier report of the same machine and leaves no temporary file", async () => {
    const dir = await mkdtemp(join(tmpdir(), "save-report-"));
    dirs.push(dir);
    await saveReport(machine("S1", null, { generatedAt: "first" }), dir);
    const saved = await saveReport(machine("S1", null, { generatedAt: "second" }), dir);
    expect(await readdir(dir)).toEqual(["S1.json"]);
    expect(JSON.parse(await readFile(saved, "utf8")).generatedAt).toBe("second");
  });

  it("names the file by the product UUID when the machine has no serial", () => {
    expect(reportFileName(machine(null, "abc-123"))).toBe("abc-123.json");
    expect(reportFileName({ system: null })).toBe("unknown-machine.json");
  });
});
