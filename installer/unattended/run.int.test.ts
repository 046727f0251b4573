// The unattended flow's ends, in process: under a failed install the disks are listed and
// the report still goes to a real HTTP server on loopback, with the installer's status and
// the hardware report the caller made; a network that does not come up leaves the report
// unsent and says why.
import { readFileSync } from "node:fs";
import { mkdir, mkdtemp, rm, truncate, writeFile } from "node:fs/promises";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { parseManifest } from "../../manifest/index.ts";
import { runUnattended, type UnattendedRunRequest } from "./run.ts";

const FILE = "test/fixtures/manifests/good/small.toml";
const parsed = parseManifest(readFileSync(FILE, "utf8"), FILE);
if (!parsed.ok) throw new Error("the fixture does not parse");
const { manifest } = parsed;

let dir: string;
let server: Server | undefined;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "liken-unattended-run-test-"));
});
afterAll(() => rm(dir, { recursive: true, force: true }));
afterEach(
  () => new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve())),
);

/** A server answering every POST with 204, keeping the bodies. */
async function serve(): Promise<{ url: string; bodies: unknown[] }> {
  const bodies: unknown[] = [];
  server = createServer((req, res) => {
    let text = "";
    req.on("data", (c: Buffer) => {
      text += c.toString();
    });
    req.on("end", () => {
      bodies.push(JSON.parse(text));
      res.writeHead(204).end();
    });
  });
  await new Promise<void>((resolve) => server?.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}/reports`, bodies };
}

/** A request for leader-1 on one blank image file, with a release folder that is not there. */
async function request(name: string): Promise<{
  request: Omit<UnattendedRunRequest, "reportUrl" | "bringUpNetwork">;
  out: string[];
  err: string[];
}> {
  const disk = join(dir, `${name}.img`);
  await writeFile(disk, "");
  await truncate(disk, 64 * 1024 * 1024);
  const efivars = join(dir, `${name}-efivars`);
  await mkdir(efivars);
  const out: string[] = [];
  const err: string[] = [];
  const then = "reboot";
  return {
    out,
    err,
    request: {
      manifest,
      as: "leader-1",
      releaseDir: join(dir, "no-release"),
      wipe: false,
      paths: [disk],
      statusFile: join(dir, `${name}-status.json`),
      recordFile: join(dir, `${name}-installed.json`),
      efivars,
      then,
      hardwareReport: async (machine) => ({ schema: "test-hardware", machine }),
      out: (t) => out.push(t),
      err: (t) => err.push(t),
    },
  };
}

describe("runUnattended", () => {
  it("lists the disks under a failed install, then sends the report by the network it was given", async () => {
    const { url, bodies } = await serve();
    const r = await request("failed");
    await expect(
      runUnattended({
        ...r.request,
        reportUrl: url,
        bringUpNetwork: async () => "the test's loopback",
      }),
    ).rejects.toThrow(/no-release/);
    expect(r.err.join("")).toContain(`${join(dir, "failed.img")}`);
    expect(r.out.slice(-2)).toEqual([
      `liken-stick: sending the report to ${url} by the test's loopback\n`,
      `liken-stick: report sent to ${url} (HTTP 204)\n`,
    ]);
    // The installer's status document, as the install left it.
    expect(bodies).toMatchObject([
      {
        schema: "liken-install-report/1",
        machine: "leader-1",
        status: { kind: "InstallerStatus", phase: "Failed", reason: "ReleaseInvalid" },
        hardware: { schema: "test-hardware", machine: "leader-1" },
      },
    ]);
  });

  it("says why the report was not sent when the network does not come up, and sends nothing", async () => {
    const { url, bodies } = await serve();
    const r = await request("no-network");
    await expect(
      runUnattended({
        ...r.request,
        reportUrl: url,
        bringUpNetwork: async () => {
          throw new Error("no network: eth0: no carrier");
        },
      }),
    ).rejects.toThrow(/no-release/);
    expect(r.out.at(-1)).toBe(
      `liken-stick: report not sent to ${url}: no network: eth0: no carrier (the install is not affected)\n`,
    );
    expect(bodies).toEqual([]);
  });

  it("sends no report without a URL", async () => {
    const r = await request("no-url");
    await expect(
      runUnattended({
        ...r.request,
        bringUpNetwork: () => Promise.reject(new Error("the network was asked for")),
      }),
    ).rejects.toThrow(/no-release/);
    expect(r.out.join("")).not.toContain("report");
  });
});
