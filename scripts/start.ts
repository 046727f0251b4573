// `npm start`: builds the default release and stick from examples/cluster.toml (cached by the
// hash of their inputs) and boots the stick in QEMU as `npm run vm` does (testing/vm-verb.ts),
// with one blank disk and one NIC, console on this terminal. The disk is 32 GiB (sparse): leader-1 of the example needs about 26 GiB.
import { copyFile, mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { main } from "../cli/main.ts";
import { createProgress } from "../common/progress.ts";
import { cachedRelease, cachedStick } from "../testing/cached-build.ts";
import { vmVerb } from "../testing/vm-verb.ts";

const root = new URL("..", import.meta.url).pathname;
process.stderr.write(
  "npm start: building release 1.0.0 and the stick (cached after the first time)\n",
);
// The first run downloads the pinned inputs and builds both: it says what it does and how
// much is left, with a bar on a terminal.
const progress = (what: string) =>
  createProgress(`npm start: ${what}`, {
    write: (text) => process.stderr.write(text),
    ...(process.stderr.isTTY ? { columns: process.stderr.columns || 80 } : {}),
  });
const releaseProgress = progress("release 1.0.0");
const release = await cachedRelease({ version: "1.0.0" }, releaseProgress);
releaseProgress.end();
const stickProgress = progress("the stick");
const stick = await cachedStick(
  { manifest: join(root, "examples/cluster.toml"), releaseDir: release },
  stickProgress,
);
stickProgress.end();
const scratch = await mkdtemp(join(tmpdir(), "liken-start-"));
try {
  // The VM writes to its stick (reports): it gets a copy, the cached image stays clean.
  await copyFile(stick, join(scratch, "stick.img"));
  // One onboard NIC, which the guest names eno1 (the port leader-1 of examples/cluster.toml
  // declares), and an SMBIOS serial: the first hardware report shows the port and the serial
  // a real server would, and no missing-port error.
  process.exitCode = await main(
    [
      ...["vm", "--stick", join(scratch, "stick.img"), "--disk", "32G"],
      ...["--nics", "1", "--system-serial", "LIKEN-VM-0001"],
    ],
    undefined,
    [vmVerb],
  );
} finally {
  await rm(scratch, { recursive: true, force: true });
}
