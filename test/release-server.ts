// A release server on 127.0.0.1 for the download's integration tests: it serves a folder
// with ranges, as a static server does, and misbehaves on request, as real links and
// servers do (headers then silence, a connection cut half-way, ranges ignored). It records
// each request's path and Range header.
import { createHash } from "node:crypto";
import { mkdir, readFile, writeFile } from "node:fs/promises";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import { join } from "node:path";
import { releaseFiles } from "../formats/release.ts";
import { writeReleaseToml } from "../formats/release-toml.ts";

export type Misbehaviour =
  /** Headers of the whole file, then nothing. */
  | "stall"
  /** Nothing at all: the request is read, no headers are sent. */
  | "silent"
  /** Headers of the whole file and its first half, then the connection is cut. */
  | "dropHalf"
  /** A 200 with the whole file, whatever the Range header says. */
  | "ignoreRange";

export interface ServedRequest {
  readonly path: string;
  readonly range: string | undefined;
  readonly status: number;
}

export interface ReleaseServer {
  /** The release folder's URL, ending in `/`. */
  readonly url: string;
  readonly requests: ServedRequest[];
  /** How the server answers the next requests for `file`, until changed; `times` of them, or all. */
  misbehave(file: string, how: Misbehaviour, times?: number): void;
  close(): Promise<void>;
}

/** Serves `dir` under /releases/2.0.0/ on a port of 127.0.0.1 the system picks. */
export async function startReleaseServer(dir: string): Promise<ReleaseServer> {
  const requests: ServedRequest[] = [];
  const rules = new Map<string, { how: Misbehaviour; left: number }>();
  const prefix = "/releases/2.0.0/";
  const server: Server = createServer((req, res) => {
    const name = decodeURIComponent((req.url ?? "").slice(prefix.length));
    const rule = rules.get(name);
    const how = rule && rule.left > 0 ? rule.how : undefined;
    if (rule && how) rule.left--;
    void serve(join(dir, name), req, res, how).then((status) =>
      requests.push({ path: req.url ?? "", range: req.headers.range, status }),
    );
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address();
  const port = typeof address === "object" && address ? address.port : 0;
  return {
    url: `http://127.0.0.1:${port}${prefix}`,
    requests,
    misbehave: (file, how, times = Number.POSITIVE_INFINITY) =>
      rules.set(file, { how, left: times }),
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

async function serve(
  path: string,
  req: IncomingMessage,
  res: ServerResponse,
  how: Misbehaviour | undefined,
): Promise<number> {
  const body = await readFile(path).catch(() => null);
  if (body === null) {
    res.writeHead(404).end();
    return 404;
  }
  if (how === "silent") return 0;
  const whole = { "content-length": String(body.length) };
  if (how === "stall") {
    res.writeHead(200, whole).flushHeaders();
    return 200;
  }
  if (how === "dropHalf") {
    res.writeHead(200, whole);
    res.write(body.subarray(0, Math.floor(body.length / 2)), () => res.socket?.destroy());
    return 200;
  }
  const range = /^bytes=(\d+)-$/.exec(req.headers.range ?? "");
  if (!range || how === "ignoreRange") {
    res.writeHead(200, whole).end(body);
    return 200;
  }
  const start = Number(range[1]);
  if (start >= body.length) {
    res.writeHead(416, { "content-range": `bytes */${body.length}` }).end();
    return 416;
  }
  res
    .writeHead(206, {
      "content-range": `bytes ${start}-${body.length - 1}/${body.length}`,
      "content-length": String(body.length - start),
    })
    .end(body.subarray(start));
  return 206;
}

/**
 * A small release folder that formats/release.ts reads as a release: each file of
 * deterministic bytes (rootfs.img `rootfsBytes` long, so a cut half-way is many chunks
 * in), release.toml with each size and sha256. Returns release.toml's sha256.
 */
export async function writeFakeRelease(dir: string, rootfsBytes = 4 * 1024 * 1024) {
  await mkdir(dir, { recursive: true });
  for (const name of releaseFiles("amd64"))
    await writeFile(join(dir, name), noise(name, name === "rootfs.img" ? rootfsBytes : 20_000));
  await writeReleaseToml(dir, "2.0.0", "6.1.0-test-amd64", {
    rootHash: "ab".repeat(32),
    dataBlocks: 1,
  });
  return createHash("sha256")
    .update(await readFile(join(dir, "release.toml")))
    .digest("hex");
}

function noise(seed: string, length: number): Buffer {
  const out = Buffer.alloc(length);
  for (let i = 0, block = 0; i < length; block++)
    i += createHash("sha256").update(`${seed}:${block}`).digest().copy(out, i);
  return out;
}
