// The command line as an operator meets it: help, usage errors and exit codes.
import { mkdtemp } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { cli } from "../test/cli.ts";
import { sparseFile } from "../test/disk-files.ts";

describe("liken-stick", () => {
  it("lists every verb in --help and exits 0", async () => {
    const r = await cli(["--help"]);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain("Usage: liken-stick VERB [OPTIONS] [ARGUMENTS]");
    expect(r.stdout).toMatch(/^ {2}manifest check FILE {2,}validate a cluster manifest/m);
    expect(r.stdout).toContain("Exit codes: 0 done, 1 refused or failed, 2 usage error;");
  });

  it("prints help on stdout and exits 0 without a verb", async () => {
    const r = await cli([]);
    expect(r.code).toBe(0);
    expect(r.stderr).toBe("");
    expect(r.stdout).toContain("Usage: liken-stick VERB");
  });

  it("suggests the nearest verb for a typo", async () => {
    const r = await cli(["manifset", "check"]);
    expect(r.code).toBe(2);
    expect(r.stderr).toBe(
      'liken-stick: unknown verb "manifset" (did you mean "manifest"? see liken-stick --help)\n',
    );
  });

  it("lists the verbs of manifest, and exits 0", async () => {
    const r = await cli(["manifest"]);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain("  liken-stick manifest check [--json] FILE\n");
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
      "liken-stick manifest check: unknown option --jsno (did you mean --json? see liken-stick manifest check --help)\n",
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
      "liken-stick manifest check: nope.toml does not exist (name the cluster manifest's .toml file)\n",
    );
  });

  it("says a folder given as the manifest is a folder", async () => {
    const r = await cli(["manifest", "check", "examples"]);
    expect(r.code).toBe(1);
    expect(r.stderr).toBe(
      "liken-stick manifest check: examples is a folder, not a file (name the cluster manifest's .toml file)\n",
    );
  });
});

describe("a refusal under --json", () => {
  const scratch = () => mkdtemp(join(tmpdir(), "liken-cli-json-"));

  it("disks: a path that does not exist", async () => {
    const r = await cli(["disks", "--json", "/nonexistent/disk.img"]);
    expect(r.code).toBe(2);
    expect(JSON.parse(r.stdout)).toEqual({
      error: expect.objectContaining({ kind: "usage", reason: "UsageError" }),
    });
    expect(r.stderr).toMatch(/^liken-stick disks: \/nonexistent\/disk.img does not exist/);
  });

  it("inspect: a blank disk is not a liken disk", async () => {
    const disk = await sparseFile(join(await scratch(), "blank.img"), 1024 ** 3);
    const r = await cli(["inspect", "--json", disk]);
    expect(r.code).toBe(1);
    const { error } = JSON.parse(r.stdout);
    expect(error).toMatchObject({ kind: "refused", reason: "Refused" });
    expect(error.what).toBe(`${disk} is not a liken disk: no valid liken claim`);
    expect(error.hint).toBe(`liken-stick disks ${disk} says what it holds`);
  });

  it("install: a release folder that does not exist", async () => {
    const dir = await scratch();
    const disk = await sparseFile(join(dir, "disk.img"), 8 * 1024 ** 3);
    const r = await cli([
      "install",
      "--json",
      "--manifest",
      "test/fixtures/manifests/good/small.toml",
      "--as",
      "leader-1",
      "--release",
      join(dir, "no-release"),
      "--status-file",
      join(dir, "status.json"),
      disk,
    ]);
    expect(r.code).toBe(1);
    const doc = JSON.parse(r.stdout);
    expect(doc.error).toMatchObject({ kind: "refused", reason: "ReleaseInvalid" });
    expect(r.stderr.trimEnd().split("\n").at(-1)).toBe(
      `liken-stick install: ${doc.error.what} (${doc.error.hint})`,
    );
  });
});
