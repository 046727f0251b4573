// The command line as an operator meets it: help, usage errors and exit codes.
import { describe, expect, it } from "vitest";
import { cli } from "../test/cli.ts";

describe("liken-stick", () => {
  it("lists every verb in --help and exits 0", async () => {
    const r = await cli(["--help"]);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain("Usage: liken-stick VERB [OPTIONS] [ARGUMENTS]");
    expect(r.stdout).toMatch(/^ {2}manifest check FILE {2,}validate a cluster manifest/m);
    expect(r.stdout).toContain("Exit codes: 0 done, 1 refused or failed, 2 usage error.");
  });

  it("prints help to stderr and exits 2 without a verb", async () => {
    const r = await cli([]);
    expect(r.code).toBe(2);
    expect(r.stdout).toBe("");
    expect(r.stderr).toContain("Usage: liken-stick VERB");
  });

  it("suggests the nearest verb for a typo", async () => {
    const r = await cli(["manifset", "check"]);
    expect(r.code).toBe(2);
    expect(r.stderr).toBe(
      'liken-stick: unknown verb "manifset" (did you mean "manifest"? see liken-stick --help)\n',
    );
  });

  it("asks for the sub-verb of manifest", async () => {
    const r = await cli(["manifest"]);
    expect(r.code).toBe(2);
    expect(r.stderr).toBe(
      "liken-stick: manifest needs one of: check; is missing (see liken-stick manifest check --help)\n",
    );
  });

  it("describes a verb with --help", async () => {
    const r = await cli(["manifest", "check", "--help"]);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^Usage: liken-stick manifest check \[--json\] FILE\n/);
    expect(r.stdout).toContain("--json");
  });

  it("refuses an unknown option with exit 2", async () => {
    const r = await cli(["manifest", "check", "--jsno", "examples/cluster.toml"]);
    expect(r.code).toBe(2);
    expect(r.stderr).toBe(
      "liken-stick manifest check: unknown option --jsno (see liken-stick manifest check --help)\n",
    );
  });

  it("refuses a missing operand with exit 2", async () => {
    const r = await cli(["manifest", "check"]);
    expect(r.code).toBe(2);
    expect(r.stderr).toBe(
      "liken-stick manifest check: missing FILE (usage: liken-stick manifest check [--json] FILE)\n",
    );
  });

  it("prints its version", async () => {
    const r = await cli(["--version"]);
    expect(r).toEqual({ stdout: "0.1.0\n", stderr: "", code: 0 });
  });
});

describe("liken-stick manifest check", () => {
  it("accepts the example manifest and prints it with defaults", async () => {
    const r = await cli(["manifest", "check", "examples/cluster.toml"]);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('cluster = "mycluster"\n');
    expect(r.stdout).toContain(
      '[layout]\nesp = "512MiB"\nslot = "2GiB"\ncrash_journal = "64MiB"\nstate = "1GiB"\n',
    );
    expect(r.stdout).toContain('name = "worker-2"\nrole = "follower"\nports = []\n');
  });

  it("prints JSON with sizes in bytes", async () => {
    const r = await cli(["manifest", "check", "--json", "examples/cluster.toml"]);
    expect(r.code).toBe(0);
    const body = JSON.parse(r.stdout);
    expect(body.ok).toBe(true);
    expect(body.manifest.layout.slot).toBe(2 * 1024 ** 3);
    expect(body.manifest.machines.map((m: { name: string }) => m.name)).toEqual([
      "leader-1",
      "worker-1",
      "worker-2",
    ]);
  });

  it("refuses a file that does not exist with exit 1", async () => {
    const r = await cli(["manifest", "check", "nope.toml"]);
    expect(r.code).toBe(1);
    expect(r.stderr).toBe(
      "liken-stick manifest check: cannot read nope.toml: no such file (check the path to the manifest)\n",
    );
  });
});
