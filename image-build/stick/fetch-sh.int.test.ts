// The netboot initramfs's download function, run by the pinned busybox (the one the
// initramfs carries, whose wget has no -T) against servers on the loopback: a file
// arrives whole; an error status fails with wget's line; a server that accepts and then
// sends nothing is stopped after the stall time (2 s here, 60 s in the initramfs).
import { mkdir, mkdtemp, readFile, rm, symlink } from "node:fs/promises";
import { createServer, type Server } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { run } from "../../tools/exec.ts";
import { requireUnpackedInputs } from "../unpacked.ts";
import { fetchSh } from "./medium-sh.ts";

let dir: string;
let busybox: string;
let server: Server;
let base: string;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "liken-fetch-sh-"));
  busybox = (await requireUnpackedInputs()).busybox;
  // The applets the function calls, from the same busybox, first on PATH.
  await mkdir(join(dir, "bin"));
  for (const applet of ["wget", "stat", "sleep", "kill", "rm", "cat"])
    await symlink(busybox, join(dir, "bin", applet));
  server = createServer((req, res) => {
    if (req.url === "/file") res.end("the payload\n");
    else if (req.url === "/silent")
      res.flushHeaders(); // headers, then nothing for ever
    else res.writeHead(404).end();
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address();
  base = `http://127.0.0.1:${typeof address === "object" && address ? address.port : 0}`;
}, 600_000);
afterAll(async () => {
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  await rm(dir, { recursive: true, force: true });
});

async function fetch(path: string): Promise<{ status: string; error: string; seconds: number }> {
  const err = join(dir, "wget.err");
  const script = `${fetchSh(2, err)}\nfetch ${base}${path} ${join(dir, "out")}; echo "status $?"`;
  const t = performance.now();
  const r = await run(busybox, ["sh", "-c", script], {
    env: { PATH: join(dir, "bin") },
    timeoutMs: 30_000,
  });
  return {
    status: r.stdout.trim(),
    error: (await readFile(err, "utf8").catch(() => "")).trim(),
    seconds: (performance.now() - t) / 1000,
  };
}

describe("fetch, the netboot initramfs's download", () => {
  it("writes the file a server sends", async () => {
    expect((await fetch("/file")).status).toBe("status 0");
    expect(await readFile(join(dir, "out"), "utf8")).toBe("the payload\n");
  });

  it("fails with wget's own line on an error status", async () => {
    const r = await fetch("/missing");
    expect(r.status).not.toBe("status 0");
    expect(r.error).toMatch(/server returned error: HTTP\/1\.1 404/);
  });

  it("stops a download that receives no bytes for the stall time", async () => {
    const r = await fetch("/silent");
    expect(r.status).toBe("status 1");
    expect(r.error).toBe("no bytes for 2 s");
    expect(r.seconds).toBeGreaterThanOrEqual(2);
  }, 60_000);
});
