// The archive must be what the kernel and cpio(1) read back, byte-identical across builds.
import { createHash } from "node:crypto";
import { mkdir, mkdtemp, readFile, rm, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { run } from "../tools/exec.ts";
import { entriesOf, writeCpio } from "./cpio.ts";

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "liken-cpio-"));
  await mkdir(join(dir, "tree/bin"), { recursive: true });
  await writeFile(join(dir, "tree/init"), "#!/bin/sh\necho hi\n", { mode: 0o755 });
  await writeFile(join(dir, "tree/bin/busybox"), Buffer.alloc(1001, 7), { mode: 0o755 });
  await symlink("busybox", join(dir, "tree/bin/sh"));
});
afterAll(() => rm(dir, { recursive: true, force: true }));

describe("writeCpio", () => {
  it("writes an archive cpio reads back, with a device node, owned by root, at the fixed time", async () => {
    const entries = [
      ...(await entriesOf(join(dir, "tree"))),
      { path: "dev", type: "dir" as const, mode: 0o755 },
      { path: "dev/console", type: "char" as const, mode: 0o600, major: 5, minor: 1 },
    ];
    await writeCpio(join(dir, "a.cpio"), entries, 1_700_000_000);
    const listing = (await run("cpio", ["-itv", "--quiet", "-F", join(dir, "a.cpio")])).stdout;
    expect(
      listing
        .split("\n")
        .filter(Boolean)
        .map((l) => l.replace(/\s+/g, " ")),
    ).toEqual([
      "drwxr-xr-x 2 root root 0 Nov 14 2023 bin",
      "-rwxr-xr-x 1 root root 1001 Nov 14 2023 bin/busybox",
      "lrwxrwxrwx 1 root root 7 Nov 14 2023 bin/sh -> busybox",
      "drwxr-xr-x 2 root root 0 Nov 14 2023 dev",
      "crw------- 1 root root 5, 1 Nov 14 2023 dev/console",
      "-rwxr-xr-x 1 root root 18 Nov 14 2023 init",
    ]);
  });

  it("gives the same bytes for the same tree", async () => {
    const entries = await entriesOf(join(dir, "tree"));
    await writeCpio(join(dir, "b.cpio"), entries, 1);
    await writeCpio(join(dir, "c.cpio"), [...entries].reverse(), 1);
    const sha = async (f: string) =>
      createHash("sha256")
        .update(await readFile(join(dir, f)))
        .digest("hex");
    expect(await sha("b.cpio")).toBe(await sha("c.cpio"));
  });
});
