#!/usr/bin/env node
// `npm start`: what a newcomer runs first. Until the stick image can be built (the
// image-build issue), it checks the example manifest the default stick will carry.
import { spawnSync } from "node:child_process";

const root = new URL("..", import.meta.url).pathname;
const r = spawnSync(`${root}bin/liken-stick`, ["manifest", "check", "examples/cluster.toml"], {
  cwd: root,
  stdio: "inherit",
});
process.exit(r.status ?? 1);
