// The menu's copy of the hardware report on the payload: where it goes and what it holds.
import { mkdtemp, readdir, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { reportFileName, saveReport } from "./save-report.ts";
import type { DiskReport, HwReport, NicReport } from "./types.ts";

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
  });
});

// Reports as the sysfs walk and the inventory give them, with only what the name reads.
const nic = (mac: string | null, bus = "pci") =>
  ({ mac, chain: [{ subsystem: "net" }, { subsystem: bus }] }) as unknown as NicReport;
const disk = (serial: string | null, removable = false) =>
  ({ model: "SSD", serial, wwn: null, size: 4e11, removable }) as unknown as DiskReport;
const anonymous = (more: Partial<Record<keyof HwReport, unknown>> = {}) =>
  ({
    system: {
      serial: null,
      uuid: null,
      manufacturer: "QEMU",
      product: "Standard PC",
      baseboard: { serial: null },
    },
    nics: [],
    disks: [],
    cpu: { brand: "Xeon", cores: 8, sockets: 1 },
    memory: { total: 2 ** 34 },
    ...more,
  }) as unknown as HwReport;

describe("the name of a report with no serial and no UUID", () => {
  it("is the baseboard's serial when the board has one", () => {
    const report = anonymous();
    const board = { ...report.system!, baseboard: { serial: "BB 42" } };
    expect(reportFileName({ ...report, system: board } as HwReport)).toBe("board-BB_42.json");
  });

  it("is the lowest MAC of the built-in NICs, whatever their order, a USB adapter's only alone", () => {
    const nics = [
      nic("52:54:00:12:34:57"),
      nic("02:00:00:00:00:01", "usb"),
      nic("52:54:00:12:34:56"),
    ];
    expect(reportFileName(anonymous({ nics }))).toBe("mac-525400123456.json");
    expect(reportFileName(anonymous({ nics: [...nics].reverse() }))).toBe("mac-525400123456.json");
    expect(reportFileName(anonymous({ nics: [nic("02:00:00:00:00:01", "usb")] }))).toBe(
      "mac-020000000001.json",
    );
  });

  it("differs between two machines that differ only in their NICs' addresses", () => {
    const a = reportFileName(anonymous({ nics: [nic("52:54:00:00:00:01")] }));
    const b = reportFileName(anonymous({ nics: [nic("52:54:00:00:00:02")] }));
    expect(a).not.toBe(b);
  });

  it("without any address, is a digest of the machine's fixed parts, the stick left out", () => {
    const one = anonymous({ disks: [disk("S1"), disk("STICK", true)] });
    const name = reportFileName(one);
    expect(name).toMatch(/^hardware-[0-9a-f]{12}\.json$/);
    // The same machine booted again, its disks found in another order, with another stick.
    expect(reportFileName(anonymous({ disks: [disk("OTHER STICK", true), disk("S1")] }))).toBe(
      name,
    );
    // Another machine of the same model: another disk.
    expect(reportFileName(anonymous({ disks: [disk("S2"), disk("STICK", true)] }))).not.toBe(name);
    expect(reportFileName({ ...one, system: null })).toMatch(/^hardware-[0-9a-f]{12}\.json$/);
  });
});
