import { describe, expect, it } from "vitest";
import { CommandError, packageFor, run } from "./exec.ts";

describe("run", () => {
  it("returns the output of a tool that succeeds", async () => {
    const r = await run("sh", ["-c", "echo out; echo err >&2"]);
    expect(r).toEqual({ stdout: "out\n", stderr: "err\n", exitCode: 0 });
  });

  it("passes arguments as they are, never through a shell", async () => {
    const r = await run("printf", ["%s|", "a b", "$(echo no)", "'; rm -rf /"]);
    expect(r.stdout).toBe("a b|$(echo no)|'; rm -rf /|");
  });

  it("names the command, the exit code and the end of stderr when a tool fails", async () => {
    const error = await run("sh", ["-c", "echo first >&2; echo boom >&2; exit 3"]).catch((e) => e);
    expect(error).toBeInstanceOf(CommandError);
    expect(error.message).toBe(
      "`sh -c 'echo first >&2; echo boom >&2; exit 3'` failed with exit code 3: first | boom",
    );
    expect(error.exitCode).toBe(3);
  });

  it("treats listed exit codes as answers", async () => {
    const r = await run("sh", ["-c", "exit 2"], { okExitCodes: [2] });
    expect(r.exitCode).toBe(2);
  });

  it("kills a tool that runs past its timeout", async () => {
    const error = await run("sleep", ["5"], { timeoutMs: 100 }).catch((e) => e);
    expect(error.message).toBe("`sleep 5` timed out");
    expect(error.timedOut).toBe(true);
  });

  it("says which signal killed a tool", async () => {
    const error = await run("sh", ["-c", "kill -9 $$"]).catch((e) => e);
    expect(error.message).toBe("`sh -c 'kill -9 $$'` was killed by SIGKILL");
  });

  it("says how to get a tool that is not installed", async () => {
    const error = await run("liken-no-such-tool", []).catch((e) => e);
    expect(error.message).toBe("liken-no-such-tool not found (install it, or run npm run setup)");
    expect(packageFor("/usr/sbin/sfdisk")).toBe("fdisk");
  });

  it("feeds standard input when given and runs in the C locale", async () => {
    const r = await run("sh", ["-c", 'cat; echo "$LANG"'], { input: "in\n" });
    expect(r.stdout).toBe("in\nC\n");
  });
});
