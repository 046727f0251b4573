// Times the image build (docs/design.md section 10): a full build of release and stick with a
// warm package cache (target under 60 s), and a rebuild with nothing changed through the
// build cache (target under 3 s). Run: npm run bench:build
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { buildEpoch } from "../image-build/epoch.ts";
import { buildRelease } from "../image-build/release/build-release.ts";
import { buildStick } from "../image-build/stick/build-stick.ts";
import { requireUnpackedInputs } from "../image-build/unpacked.ts";
import { cachedRelease, cachedStick } from "../testing/cached-build.ts";
import { run } from "../tools/exec.ts";

const manifest = new URL("../examples/cluster.toml", import.meta.url).pathname;
const dir = await mkdtemp(join(tmpdir(), "liken-bench-build-"));
const seconds = (t: number) => ((performance.now() - t) / 1000).toFixed(1);
try {
  await requireUnpackedInputs(); // the package cache warm, as the target says
  let t = performance.now();
  await buildRelease({
    version: "1.0.0",
    out: join(dir, "release"),
    epoch: buildEpoch(),
    workDir: join(dir, "w1"),
  });
  await buildStick({
    manifest,
    releaseDir: join(dir, "release"),
    out: join(dir, "stick.img"),
    epoch: buildEpoch(),
    workDir: join(dir, "w2"),
  });
  console.log(`full build, release and stick, warm package cache: ${seconds(t)} s (target < 60 s)`);
  const release = await cachedRelease({ version: "1.0.0" });
  await cachedStick({ manifest, releaseDir: release });
  // A new process, as `npm start` is: it hashes the sources again and finds both builds.
  t = performance.now();
  const script = `import { cachedRelease, cachedStick } from ${JSON.stringify(new URL("../testing/cached-build.ts", import.meta.url).pathname)};
await cachedStick({ manifest: ${JSON.stringify(manifest)}, releaseDir: await cachedRelease({ version: "1.0.0" }) });`;
  await run(process.execPath, ["--import", "tsx", "--input-type=module", "-e", script]);
  console.log(`rebuild with nothing changed (a new process):     ${seconds(t)} s (target < 3 s)`);
} finally {
  await rm(dir, { recursive: true, force: true });
}
