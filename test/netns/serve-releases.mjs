// A release server for the QEMU update tests, run inside their network namespace:
//   node test/netns/serve-releases.mjs ROOT ADDRESS PORT RULES
// serves ROOT's files at / (with ranges, as a static server does) and prints `serving` once
// it listens. RULES is a JSON file read at each request, { "<version>": how }, for the
// requests under /releases/<version>/: "serve" (the default), "stall" (the headers of the
// whole file, then nothing, as a link that dies does) or "unavailable" (503).
import { createReadStream, readFileSync, statSync } from "node:fs";
import { createServer } from "node:http";
import { join, normalize } from "node:path";

const [root, address, port, rules] = process.argv.slice(2);

function behaviour(path) {
  const version = /^\/releases\/([^/]+)\//.exec(path)?.[1];
  if (!version) return "serve";
  try {
    return JSON.parse(readFileSync(rules, "utf8"))[version] ?? "serve";
  } catch {
    return "serve";
  }
}

createServer((req, res) => {
  const path = normalize(decodeURIComponent(new URL(req.url, "http://x").pathname));
  const file = join(root, path);
  const info = statSync(file, { throwIfNoEntry: false });
  if (!file.startsWith(root) || !info?.isFile()) {
    res.writeHead(404).end("no such file\n");
    return;
  }
  const how = behaviour(path);
  if (how === "unavailable") {
    res.writeHead(503).end("not now\n");
    return;
  }
  if (how === "stall") {
    res.writeHead(200, { "content-length": info.size }).flushHeaders();
    return;
  }
  const range = /^bytes=(\d+)-$/.exec(req.headers.range ?? "");
  const start = range ? Number(range[1]) : 0;
  if (start >= info.size && range) {
    res.writeHead(416, { "content-range": `bytes */${info.size}` }).end();
    return;
  }
  res.writeHead(range ? 206 : 200, {
    "content-length": info.size - start,
    ...(range ? { "content-range": `bytes ${start}-${info.size - 1}/${info.size}` } : {}),
  });
  if (req.method === "HEAD") res.end();
  else createReadStream(file, { start }).pipe(res);
}).listen(Number(port), address, () => process.stdout.write("serving\n"));
