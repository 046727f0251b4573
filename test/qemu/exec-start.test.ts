// tools/exec.ts start(): the way QEMU is run, on small programs.
import { describe, expect, it } from "vitest";
import { CommandError, packageFor, start } from "../../tools/exec.ts";

describe("start", () => {
  it("returns at once and reports the exit code and the end of stderr when the program ends", async () => {
    const p = await start("sh", ["-c", "echo one >&2; echo two >&2; exit 3"]);
    expect(p.pid).toBeGreaterThan(0);
    expect(await p.exited).toEqual({ exitCode: 3, signal: undefined, stderrTail: "one\ntwo" });
  });

  it("gives the caller stdout and stdin as streams when asked", async () => {
    const p = await start("sh", ["-c", "read line; echo got $line"], {
      stdin: "pipe",
      stdout: "pipe",
    });
    let out = "";
    p.stdout?.setEncoding("utf8").on("data", (c: string) => {
      out += c;
    });
    p.stdin?.end("keys\n");
    expect((await p.exited).exitCode).toBe(0);
    expect(out).toBe("got keys\n");
  });

  it("kills the program", async () => {
    const p = await start("sleep", ["30"]);
    p.kill("SIGKILL");
    expect(await p.exited).toMatchObject({ exitCode: undefined, signal: "SIGKILL" });
  });

  it("names the package of a program that is not installed", async () => {
    const error = await (await start("qemu-system-x86_64-not-here", [])).exited.catch((e) => e);
    expect(error).toBeInstanceOf(CommandError);
    expect(error.message).toBe(
      "qemu-system-x86_64-not-here not found (install it, or run npm run setup)",
    );
    expect(packageFor("qemu-system-x86_64")).toBe("qemu-system-x86");
  });
});
