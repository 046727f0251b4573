// A static HTTP server for the netboot tests, run inside their network namespace:
//   node test/serve-folder.mjs ROOT ADDRESS PORT GATE
// serves ROOT's files at /; while the file GATE exists, every request for a payload file
// (a path with /payload/ in it) gets 503, as a server that is not ready yet.
import { createReadStream, existsSync, statSync } from "node:fs";
import { createServer } from "node:http";
import { join, normalize } from "node:path";

const [root, address, port, gate] = process.argv.slice(2);
createServer((req, res) => {
  const path = normalize(decodeURIComponent(new URL(req.url, "http://x").pathname));
  if (path.includes("/payload/") && existsSync(gate)) {
    res.writeHead(503).end("not yet\n");
    return;
  }
  const file = join(root, path);
  const info = statSync(file, { throwIfNoEntry: false });
  if (!file.startsWith(root) || !info?.isFile()) {
    res.writeHead(404).end("no such file\n");
    return;
  }
  res.writeHead(200, { "content-length": info.size });
  if (req.method === "HEAD") res.end();
  else createReadStream(file).pipe(res);
}).listen(Number(port), address, () => process.stdout.write(`serving ${root}\n`));
