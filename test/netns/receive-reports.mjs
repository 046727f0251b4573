// An HTTP receiver of the stick's reports (liken.report=URL), run inside a test's network
// namespace: `node test/netns/receive-reports.mjs ADDRESS PORT FILE` appends each POSTed
// body to FILE as one line, and prints `listening` once it listens.
import { appendFileSync } from "node:fs";
import { createServer } from "node:http";

const [address, port, file] = process.argv.slice(2);
createServer((req, res) => {
  let body = "";
  req.on("data", (chunk) => {
    body += chunk.toString();
  });
  req.on("end", () => {
    if (req.method === "POST")
      appendFileSync(
        file,
        `${JSON.stringify({ from: req.socket.remoteAddress, body: JSON.parse(body) })}\n`,
      );
    res.writeHead(204).end();
  });
}).listen(Number(port), address, () => process.stdout.write("listening\n"));
