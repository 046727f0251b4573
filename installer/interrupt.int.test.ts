// Ctrl-C during an install, and its kin: SIGINT, SIGTERM or SIGHUP sent to the running
// command while it writes. It stops at the next point a second run finishes from, says in
// one line where it stopped and that the same install finishes it, leaves its status at
// phase Interrupted, and exits 128 and the signal's number; the same install then finishes.
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { cli, startCli, waitForOutput } from "../test/cli.ts";
import { sparseFile } from "../test/disk-files.ts";
import { makeTestRelease } from "../test/release-fixture.ts";

const MANIFEST = "test/fixtures/manifests/good/small.toml";
const MIB = 1024 * 1024;

let dir: string;
let release: string;
let counter = 0;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "liken-interrupt-"));
  // 32 MiB of data: the slot write takes long enough to be stopped in.
  release = await makeTestRelease(join(dir, "release-1.0.0"), {
    version: "1.0.0",
    dataBytes: 32 * MIB,
  });
}, 120_000);
afterAll(() => rm(dir, { recursive: true, force: true }));

function installArgs(disk: string, status: string): string[] {
  return [
    "install",
    ...["--manifest", MANIFEST, "--as", "leader-1", "--release", release],
    ...["--status-file", status, disk],
  ];
}

const STOPPED =
  /^liken-stick install: stopped by (SIG[A-Z]+) (while|before) (.+?); (.+) \(run the same install again to finish it\)$/;

describe("an install stopped by a signal", { timeout: 180_000 }, () => {
  it.each([
    ["SIGINT", 130],
    ["SIGTERM", 143],
    ["SIGHUP", 129],
  ] as const)(
    "%s: one line, status Interrupted, exit %i; the same install finishes it",
    async (signal, code) => {
      const disk = await sparseFile(join(dir, `disk-${++counter}.img`), 2048 * MIB);
      const status = join(dir, `status-${counter}.json`);
      const child = await startCli(installArgs(disk, status));
      // Once it has begun to write, stop it.
      await waitForOutput(child.stdout, "» writing the liken claim");
      process.kill(child.pid as number, signal);
      const exit = await child.exited;
      expect(exit.exitCode, exit.stderrTail).toBe(code);
      const lines = exit.stderrTail.split("\n").filter((l) => !l.includes(": warning: "));
      expect(lines).toHaveLength(1);
      const [line] = lines;
      const match = STOPPED.exec(line ?? "");
      expect(match, line).not.toBeNull();
      expect(match?.[1]).toBe(signal);
      expect(match?.[4]).toBe(`${disk} holds a partial install`);
      const document = JSON.parse(await readFile(status, "utf8"));
      expect(document).toMatchObject({ phase: "Interrupted", reason: "" });
      expect(`liken-stick install: ${document.message}`).toBe(line);
      // Nothing of the install is left holding the disk or the status.
      await expect(readFile(`${disk}.liken-lock`)).rejects.toThrow();
      await expect(readFile(`${status}.lock`)).rejects.toThrow();
      const disks = JSON.parse((await cli(["disks", "--json", disk])).stdout);
      expect(disks[0].reasons).toContain("liken-claim:partial");

      const again = await cli(installArgs(disk, status));
      expect(again.code, again.stderr).toBe(0);
      expect(JSON.parse(await readFile(status, "utf8"))).toMatchObject({ phase: "Installed" });
      const after = JSON.parse((await cli(["disks", "--json", disk])).stdout);
      expect(after[0].reasons).toContain("liken-claim:complete");
    },
  );

  it("before it writes, it says that nothing was written", async () => {
    const disk = await sparseFile(join(dir, `disk-${++counter}.img`), 2048 * MIB);
    const status = join(dir, `status-${counter}.json`);
    const child = await startCli(installArgs(disk, status));
    await waitForOutput(child.stdout, "» verifying the release");
    process.kill(child.pid as number, "SIGINT");
    const exit = await child.exited;
    expect(exit.exitCode).toBe(130);
    const line = exit.stderrTail.split("\n").filter((l) => !l.includes(": warning: "))[0];
    expect(line).toMatch(
      /^liken-stick install: stopped by SIGINT (while|before) (verifying the release|planning the layout|locking the target disks); nothing was written \(run the same install again to finish it\)$/,
    );
    const disks = JSON.parse((await cli(["disks", "--json", disk])).stdout);
    expect(disks[0].verdict).toBe("blank");
  });
});
