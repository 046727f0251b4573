// The report an unattended stick sends (liken.report=URL), against a real HTTP server on
// loopback: it posts the JSON, tries again after a failure, and gives up within its budget.
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { cli } from "../../test/cli.ts";
import { type InstallReport, sendReport } from "./send-report.ts";

const REPORT: InstallReport = {
  schema: "liken-install-report/1",
  machine: "worker-1",
  status: { phase: "Installed" },
  hardware: null,
};

let server: Server | undefined;
afterEach(
  () => new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve())),
);

/** A server answering each POST with the next status, recording the bodies. */
async function serve(statuses: number[]): Promise<{ url: string; bodies: unknown[] }> {
  const bodies: unknown[] = [];
  server = createServer((req, res) => {
    let text = "";
    req.on("data", (c: Buffer) => {
      text += c.toString();
    });
    req.on("end", () => {
      bodies.push({
        method: req.method,
        type: req.headers["content-type"],
        json: JSON.parse(text),
      });
      res.writeHead(statuses.shift() ?? 200).end();
    });
  });
  await new Promise<void>((resolve) => server?.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}/reports`, bodies };
}

describe("sendReport", () => {
  it("posts the report as JSON, and tries again after a failed answer", async () => {
    const { url, bodies } = await serve([503, 204]);
    expect(await sendReport(url, REPORT)).toEqual({ sent: true, detail: "HTTP 204", tries: 2 });
    expect(bodies).toEqual([
      { method: "POST", type: "application/json", json: REPORT },
      { method: "POST", type: "application/json", json: REPORT },
    ]);
  });

  it("gives up within its budget and says why", async () => {
    const { url } = await serve([]);
    const closed = url;
    await new Promise<void>((resolve) => server?.close(() => resolve()));
    server = undefined;
    expect(await sendReport(closed, REPORT, 1_000)).toEqual({
      sent: false,
      detail: "ECONNREFUSED",
      tries: 1,
    });
  });
});

describe("liken-stick unattended --report", () => {
  it("refuses a URL that is not http or https before it does anything", async () => {
    const r = await cli(["unattended", "--as", "leader-1", "--report", "ftp://example/x"]);
    expect(r.code).toBe(2);
    expect(r.stderr).toBe(
      "liken-stick unattended: --report ftp://example/x is not an http or https URL (give a URL such as http://10.0.0.1:8080/liken/reports)\n",
    );
  });
});
