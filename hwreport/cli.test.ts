// `liken-stick hwreport` as the operator runs it, on this machine.
import { describe, expect, it } from "vitest";
import { cli } from "../test/cli.ts";
import { HWREPORT_SCHEMA, type HwReport } from "./types.ts";

describe("liken-stick hwreport", () => {
  it("--json: every section, exit 0, in a few seconds", async () => {
    const started = performance.now();
    const r = await cli(["hwreport", "--json"]);
    const seconds = (performance.now() - started) / 1000;
    expect(r.code, r.stderr).toBe(0);
    const report = JSON.parse(r.stdout) as HwReport;
    expect(Object.keys(report)).toEqual([
      "schema",
      "generatedAt",
      "problems",
      "system",
      "cpu",
      "memory",
      "disks",
      "nics",
      "ports",
      "release",
      "layouts",
      "saved",
    ]);
    expect(report.schema).toBe(HWREPORT_SCHEMA);
    expect(report.release).toBeNull();
    expect(report.problems.map((p) => p.code)).toContain("no-release");
    expect(report.cpu?.cores).toBeGreaterThan(0);
    expect(report.memory?.total).toBeGreaterThan(0);
    for (const d of report.disks) expect(d.missingModules).toBeNull();
    expect(seconds).toBeLessThan(5);
  });

  it("text: problems first, then every section", async () => {
    const r = await cli(["hwreport"]);
    expect(r.code, r.stderr).toBe(0);
    const heads = r.stdout.split("\n").filter((l) => /^[A-Z]/.test(l));
    expect(heads[0]).toMatch(/^Problems/);
    expect(heads.slice(1)).toEqual([
      "System",
      "CPU and memory",
      "Disks",
      "NICs",
      "Proposed layout",
    ]);
  });

  it("--as without --manifest is a usage error", async () => {
    const r = await cli(["hwreport", "--as", "leader-1"]);
    expect(r.code).toBe(2);
    expect(r.stderr).toBe(
      "liken-stick hwreport: --as NAME needs --manifest FILE (see liken-stick hwreport --help)\n",
    );
  });
});
