#!/usr/bin/env node
// Makes this checkout ready to run: npm packages from package-lock.json and the Debian host
// tools listed in tools/host-tools.json. Shared by `npm start` and `npm test`; quick (no
// subprocess at all) when everything is present. It runs before node_modules exists, so it
// uses only Node's built-ins.
import { spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { delimiter, join } from "node:path";

const root = new URL("..", import.meta.url).pathname;
const stampFile = join(root, "node_modules", ".liken-setup-stamp");

function say(line) {
  process.stderr.write(`setup: ${line}\n`);
}

function fail(line) {
  say(line);
  process.exit(1);
}

function sh(cmd, args) {
  say(`+ ${[cmd, ...args].join(" ")}`);
  const r = spawnSync(cmd, args, {
    cwd: root,
    stdio: ["ignore", "inherit", "inherit"],
    env: { ...process.env, DEBIAN_FRONTEND: "noninteractive" },
  });
  return r.status === 0;
}

function ensureNodeModules() {
  const lock = readFileSync(join(root, "package-lock.json"));
  const want = createHash("sha256").update(lock).digest("hex");
  const have = existsSync(stampFile) ? readFileSync(stampFile, "utf8").trim() : "";
  if (have === want) return;
  if (!sh("npm", ["ci", "--no-audit", "--no-fund"])) {
    fail("npm ci failed (check that the npm registry is reachable, then run npm run setup)");
  }
  writeFileSync(stampFile, `${want}\n`);
}

function onPath(command) {
  // root's tools live in sbin, which a non-login shell may leave off PATH
  const dirs = [...(process.env.PATH ?? "").split(delimiter), "/usr/sbin", "/sbin"];
  return dirs.some((d) => d && existsSync(join(d, command)));
}

function ensureHostTools() {
  const { tools } = JSON.parse(readFileSync(join(root, "tools", "host-tools.json"), "utf8"));
  const missing = tools.filter((t) => (t.command ? !onPath(t.command) : !existsSync(t.path)));
  if (missing.length === 0) return;
  const packages = [...new Set(missing.map((t) => t.package))].sort();
  if (process.getuid?.() !== 0) {
    fail(
      `missing host tools (${missing.map((t) => t.command ?? t.path).join(", ")}): run as root, or apt-get install ${packages.join(" ")}`,
    );
  }
  const install = ["install", "-y", "--no-install-recommends", ...packages];
  // apt-get update once: when no package lists are present, or when an install from stale lists fails.
  const haveLists =
    spawnSync("sh", ["-c", "ls /var/lib/apt/lists/*_Packages >/dev/null 2>&1"]).status === 0;
  if (!haveLists) sh("apt-get", ["update"]);
  if (sh("apt-get", install)) return;
  if (haveLists && sh("apt-get", ["update"]) && sh("apt-get", install)) return;
  fail(
    `apt-get could not install ${packages.join(" ")} (check the Debian mirror, then run npm run setup)`,
  );
}

ensureNodeModules();
ensureHostTools();
