// `liken-stick hwreport` as the operator runs it, on this machine.
import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { basename, join } from "node:path";
import { describe, expect, it } from "vitest";
import { cli } from "../test/cli.ts";
import { mount, umount } from "../tools/mount.ts";
import { HWREPORT_SCHEMA, type HwReport } from "./types.ts";

describe("liken-stick hwreport", () => {
  // Its speed is bench/hwreport.ts's (against inxi and lshw), not a pass/fail test's.
  it("--json: every section, exit 0", async () => {
    const r = await cli(["hwreport", "--json"]);
    expect(r.code, r.stderr).toBe(0);
    const report = JSON.parse(r.stdout) as HwReport;
    expect(Object.keys(report)).toEqual([
      "schema",
      "generatedAt",
      "problems",
      "system",
      "tpm",
      "cpu",
      "memory",
      "disks",
      "nics",
      "ports",
      "interfaces",
      "release",
      "layouts",
      "saved",
    ]);
    expect(report.schema).toBe(HWREPORT_SCHEMA);
    expect(report.release).toBeNull();
    expect(report.problems.map((p) => p.reason)).toContain("no-release");
    // This host's TPM, or none: either way a finding the enrollment could act on.
    expect(["none", "found", "unknown"]).toContain(report.tpm.optionRoms.kind);
    expect(report.cpu?.cores).toBeGreaterThan(0);
    expect(report.memory?.total).toBeGreaterThan(0);
    for (const d of report.disks) expect(d.missingModules).toBeNull();
  });

  it("text: problems first, then every section", async () => {
    const r = await cli(["hwreport"]);
    expect(r.code, r.stderr).toBe(0);
    const heads = r.stdout.split("\n").filter((l) => /^[A-Z]/.test(l));
    expect(heads[0]).toMatch(/^Problems/);
    expect(heads.slice(1)).toEqual([
      "System",
      "TPM",
      "CPU and memory",
      "Disks",
      "NICs",
      "Proposed layout",
    ]);
  });

  it("--save DIR: writes the JSON to DIR/<serial or uuid>.json and says where", async () => {
    const dir = await mkdtemp(join(tmpdir(), "hwreport-save-"));
    try {
      const r = await cli(["hwreport", "--json", "--save", join(dir, "reports")]);
      expect(r.code, r.stderr).toBe(0);
      const printed = JSON.parse(r.stdout) as HwReport;
      expect(printed.saved).toMatch(new RegExp(`^${dir}/reports/[^/]+\\.json$`));
      expect(await readdir(join(dir, "reports"))).toEqual([basename(printed.saved as string)]);
      const saved = JSON.parse(await readFile(printed.saved as string, "utf8")) as HwReport;
      expect(saved).toEqual(printed);
      const text = await cli(["hwreport", "--save", join(dir, "reports")]);
      expect(text.stdout.trimEnd().split("\n").at(-1)).toBe(`Saved to ${printed.saved}`);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it("--save into a folder it cannot write: the report, then one error line, exit 1", async () => {
    const dir = await mkdtemp(join(tmpdir(), "hwreport-save-"));
    try {
      await writeFile(join(dir, "a-file"), "");
      const r = await cli(["hwreport", "--save", join(dir, "a-file", "reports")]);
      expect(r.code).toBe(1);
      expect(r.stdout).toMatch(/^Problems/);
      const json = await cli(["hwreport", "--json", "--save", join(dir, "a-file", "reports")]);
      const doc = JSON.parse(json.stdout);
      expect(doc.schema).toBe(HWREPORT_SCHEMA);
      expect(doc.error).toMatchObject({ kind: "failed", reason: "Failed" });
      expect(r.stderr).toMatch(
        /^liken-stick hwreport: the report was not saved to \S+\/a-file\/reports: cannot create the folder \S+\/a-file\/reports: a part of its path is not a folder \(check that the folder is on a writable disk and the stick is not write-protected, then run it again\)\n$/,
      );
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it("--save onto a read-only medium (an ISO, a netboot's payload): says so, exit 1", async () => {
    const dir = await mkdtemp(join(tmpdir(), "hwreport-ro-"));
    // As on an ISO: the reports folder is there, and the filesystem is read-only.
    await mount("tmpfs", dir, "tmpfs");
    await mkdir(join(dir, "reports"));
    await mount("tmpfs", dir, "tmpfs", ["remount", "ro"]);
    try {
      const r = await cli(["hwreport", "--save", join(dir, "reports")]);
      expect(r.code).toBe(1);
      expect(r.stderr).toBe(
        `liken-stick hwreport: the report was not saved to ${dir}/reports: the medium is read-only (an ISO, or the network's payload) (read it here, or boot the machine from a stick to carry its report away)\n`,
      );
    } finally {
      await umount(dir);
      await rm(dir, { recursive: true, force: true });
    }
  });

  it("--as without --manifest is a usage error", async () => {
    const r = await cli(["hwreport", "--as", "leader-1"]);
    expect(r.code).toBe(2);
    expect(r.stderr).toBe(
      "liken-stick hwreport: --as NAME needs --manifest FILE (see liken-stick hwreport --help)\n",
    );
  });
});
