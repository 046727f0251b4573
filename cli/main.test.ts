// The command line as a program meets it under --json, and the order of a manifest's
// problems, through main() with its output captured (no program started).
import { mkdtemp, readFile, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { LikenError } from "../common/errors.ts";
import { failureDocument } from "./json-error.ts";
import { main } from "./main.ts";
import { plainError } from "./plain-error.ts";

async function run(argv: readonly string[]) {
  let stdout = "";
  let stderr = "";
  const code = await main(argv, {
    out: (t) => {
      stdout += t;
    },
    err: (t) => {
      stderr += t;
    },
  });
  return { code, stdout, stderr };
}

async function manifestFile(text: string | Uint8Array): Promise<string> {
  const file = join(await mkdtemp(join(tmpdir(), "liken-main-")), "cluster.toml");
  await writeFile(file, text);
  return file;
}

const VALID = `cluster = "c"\n[release]\nversion = "1.0.0"\n[[machines]]\nname = "m"\nrole = "leader"\nports = ["eno1"]\n`;

const PLAN_USAGE =
  "liken-stick plan --manifest FILE --as NAME [--release DIR] [--wipe] [--wipe-cluster NAME]... [--sector-size BYTES] [--json] [PATH...]";

describe("a refusal under --json", () => {
  it("is one document on stdout, { error: { kind, reason, what, hint } }, beside the line on stderr", async () => {
    const r = await run(["plan", "--json", "--as", "m"]);
    expect(r.code).toBe(2);
    expect(JSON.parse(r.stdout)).toEqual({
      error: {
        kind: "usage",
        reason: "UsageError",
        what: "missing --manifest FILE",
        hint: `usage: ${PLAN_USAGE}`,
      },
    });
    expect(r.stderr).toBe(`liken-stick plan: missing --manifest FILE (usage: ${PLAN_USAGE})\n`);
  });

  it("names an unknown option as a usage error in JSON too", async () => {
    const r = await run(["disks", "--json", "--wipe"]);
    expect(r.code).toBe(2);
    expect(JSON.parse(r.stdout).error).toMatchObject({ kind: "usage", reason: "UsageError" });
  });

  it("carries the manifest's problems and the error in one document", async () => {
    const file = await manifestFile(`${VALID}bogus = 1\n`);
    const r = await run(["manifest", "check", "--json", file]);
    expect(r.code).toBe(1);
    const doc = JSON.parse(r.stdout);
    expect(doc.ok).toBe(false);
    expect(doc.errors).toHaveLength(1);
    expect(doc.error).toEqual({
      kind: "refused",
      reason: "ManifestInvalid",
      what: `${file}:8:1: unknown key "bogus" in [[machines]]`,
      hint: doc.errors[0].hint,
    });
  });

  it("reads a manifest that is not there as a refusal in JSON, with its reason", async () => {
    const r = await run(["plan", "--json", "--manifest", "/nonexistent/cluster.toml", "--as", "m"]);
    expect(r.code).toBe(1);
    expect(JSON.parse(r.stdout)).toEqual({
      error: {
        kind: "refused",
        reason: "ManifestInvalid",
        what: "/nonexistent/cluster.toml does not exist",
        hint: "name the cluster manifest's .toml file",
      },
    });
  });

  it("prints nothing more than the usual output when the verb succeeds", async () => {
    const file = await manifestFile(VALID);
    const r = await run(["manifest", "check", "--json", file]);
    expect(r.code).toBe(0);
    expect(Object.keys(JSON.parse(r.stdout))).toEqual(["ok", "manifest", "warnings"]);
  });
});

describe("failureDocument", () => {
  const refused = new LikenError({ kind: "refused", what: "no", hint: "do", reason: "DiskBusy" });

  it("adds error to the document the verb printed before it failed", () => {
    expect(JSON.parse(failureDocument('{"ok":false,"failure":{}}\n', refused))).toEqual({
      ok: false,
      failure: {},
      error: { kind: "refused", reason: "DiskBusy", what: "no", hint: "do" },
    });
  });

  it("gives an error without a reason the reason of its kind", () => {
    const failed = new LikenError({ kind: "failed", what: "broke", hint: "retry" });
    expect(JSON.parse(failureDocument("", failed)).error.reason).toBe("Failed");
  });

  it("reports an error the code did not expect as InternalError with its causes", () => {
    const error = new Error("reading the ESP", { cause: new Error("EIO: i/o error") });
    expect(JSON.parse(failureDocument("", error)).error).toEqual({
      kind: "failed",
      reason: "InternalError",
      what: "reading the ESP: EIO: i/o error",
      hint: "this may be a bug in liken-stick: please report it with this line",
    });
  });
});

describe("a manifest's problems on stderr", () => {
  it("come in the order of the file, warnings among errors, then a count", async () => {
    const file = await manifestFile(
      `cluster = "c"\n[release]\nversion = "1.0.0"\n[layout]\nslot = "512MiB"\n[[machines]]\nname = "m"\nrole = "leadr"\nbogus = 1\n`,
    );
    const r = await run(["plan", "--manifest", file, "--as", "m"]);
    expect(r.code).toBe(1);
    const lines = r.stderr.trimEnd().split("\n");
    expect(lines.map((l) => l.replace(/ \(.*$/, ""))).toEqual([
      `liken-stick plan: warning: ${file}:5:8: layout.slot "512MiB" is smaller than 1GiB`,
      `liken-stick plan: ${file}:8:8: role "leadr" is not a machine role`,
      `liken-stick plan: ${file}:9:1: unknown key "bogus" in [[machines]]`,
      `liken-stick plan: the manifest ${file} has 2 errors`,
    ]);
  });

  it("end with the one error itself, printed once, when it comes last", async () => {
    const file = await manifestFile(`${VALID}bogus = 1\n`);
    const r = await run(["manifest", "check", file]);
    expect(r.code).toBe(1);
    expect(r.stderr.split("\n").filter(Boolean)).toHaveLength(1);
    expect(r.stderr).toMatch(/^liken-stick manifest check: .*:8:1: unknown key "bogus"/);
  });
});

describe("help and usage", () => {
  it("prints the help on stdout and exits 0 when no verb is given", async () => {
    const r = await run([]);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain("Usage: liken-stick VERB [OPTIONS] [ARGUMENTS]");
    expect(r.stderr).toBe("");
  });

  it("lists a group's verbs for `manifest` and `manifest --help`, exit 0", async () => {
    for (const argv of [["manifest"], ["manifest", "--help"], ["help", "manifest"]]) {
      const r = await run(argv);
      expect(r.code).toBe(0);
      expect(r.stdout).toBe(
        [
          "The verbs of liken-stick manifest:",
          "",
          "  liken-stick manifest check [--json] FILE",
          "      validate a cluster manifest and print it normalized",
          "",
          "liken-stick manifest check --help says more.",
          "",
        ].join("\n"),
      );
    }
  });

  it("suggests the verb of a group that was meant", async () => {
    const r = await run(["manifest", "chek", "x.toml"]);
    expect(r.code).toBe(2);
    expect(r.stderr).toBe(
      'liken-stick: unknown verb "manifest chek" (did you mean "manifest check"? see liken-stick manifest --help)\n',
    );
  });

  it("shows required options without brackets, and refuses a command line without them", async () => {
    const help = await run(["install", "--help"]);
    expect(help.stdout).toMatch(
      /^Usage: liken-stick install --manifest FILE --as NAME --release DIR \[--wipe\] \[--wipe-cluster NAME\]\.\.\. /,
    );
    const r = await run(["install", "--manifest", "x.toml", "--as", "m"]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(
      /^liken-stick install: missing --release DIR \(usage: liken-stick install /,
    );
  });

  it("suggests the option that was meant", async () => {
    const r = await run(["plan", "--manifst", "x.toml"]);
    expect(r.code).toBe(2);
    expect(r.stderr).toBe(
      "liken-stick plan: unknown option --manifst (did you mean --manifest? see liken-stick plan --help)\n",
    );
  });

  it("says what an option's value is when it is missing", async () => {
    const r = await run(["disks", "--sector-size"]);
    expect(r.stderr).toBe(
      "liken-stick disks: option --sector-size BYTES needs a value (see liken-stick disks --help)\n",
    );
  });
});

describe("an error the system gave", () => {
  it("names what could not be done to what, and what to do, without a bug report", async () => {
    const file = join(await mkdtemp(join(tmpdir(), "liken-main-")), "status.json");
    const errno = await readFile(file).catch((e: unknown) => e);
    const error = plainError(new Error("writing the status", { cause: errno }));
    expect(error).toBeInstanceOf(LikenError);
    expect((error as LikenError).message).toBe(
      `writing the status: cannot open ${file}: it does not exist (check the path)`,
    );
    expect(JSON.parse(failureDocument("", error)).error.reason).toBe("FileError");
  });

  it("keeps an error that is no file error as it is, a bug to report", () => {
    const error = new TypeError("x is undefined");
    expect(plainError(error)).toBe(error);
  });
});
