// The server an unattended stick sends its report to (liken.report=URL): on the host's
// loopback, which QEMU's user network shows the guest as 10.0.2.2. Each POST's JSON body is
// kept in order. The port is fixed per test file: the URL is on the stick's command line,
// and the stick is built once for every run.
import { createServer } from "node:http";

export interface ReportServer<T> {
  /** liken.report=URL as the guest reaches this server. */
  readonly url: string;
  /** Every report received, oldest first. */
  readonly reports: T[];
  close(): Promise<void>;
}

/** Listens on 127.0.0.1:`port`; fails at once when the port is taken. */
export async function startReportServer<T>(port: number): Promise<ReportServer<T>> {
  const reports: T[] = [];
  const server = createServer((req, res) => {
    let body = "";
    req.on("data", (c: Buffer) => {
      body += c.toString();
    });
    req.on("end", () => {
      if (req.method === "POST" && req.url === "/liken/reports") reports.push(JSON.parse(body));
      res.writeHead(204).end();
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, "127.0.0.1", resolve);
  });
  return {
    url: `http://10.0.2.2:${port}/liken/reports`,
    reports,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
