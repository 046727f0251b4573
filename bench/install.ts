// Times an install of a release whose root filesystem holds 300 MiB of data into a 1 GiB
// slot, against `bmaptool copy` of the same rootfs.img onto the same kind of target, in the
// same run, and prints the ratios (docs/design.md section 10; target: slot write at most 1.25).
// Run: npm run bench:install
import { mkdtemp, readFile, rm, truncate, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { GIB, MIB } from "../common/size.ts";
import { type InstallStep, install } from "../installer/install.ts";
import { parseManifest } from "../manifest/index.ts";
import { makeTestRelease } from "../test/release-fixture.ts";
import { run } from "../tools/exec.ts";

const RUNS = 3;
const dir = await mkdtemp(join(tmpdir(), "liken-bench-install-"));

async function freshDisk(name: string): Promise<string> {
  const file = join(dir, name);
  await rm(file, { force: true });
  await writeFile(file, "");
  await truncate(file, 4 * GIB);
  return file;
}

function median(xs: number[]): number {
  return xs.sort((a, b) => a - b)[Math.floor(xs.length / 2)] as number;
}

try {
  const manifestFile = new URL("./fixtures/slot-1g.toml", import.meta.url).pathname;
  const parsed = parseManifest(await readFile(manifestFile, "utf8"), manifestFile);
  if (!parsed.ok) throw new Error("bench manifest does not parse");
  const release = await makeTestRelease(join(dir, "release"), {
    version: "1.0.0",
    dataBytes: 300 * MIB,
  });
  const rootfs = join(release, "rootfs.img");
  const bmap = join(dir, "rootfs.bmap");
  await writeFile(bmap, (await run("bmaptool", ["create", rootfs])).stdout);

  const whole: number[] = [];
  const slot: number[] = [];
  const peer: number[] = [];
  for (let i = 0; i < RUNS; i++) {
    const disk = await freshDisk("install.img");
    const started = new Map<InstallStep, number>();
    const t0 = performance.now();
    await install({
      manifest: parsed.manifest,
      machine: "leader-1",
      releaseDir: release,
      wipe: false,
      paths: [disk],
      statusFile: join(dir, "status.json"),
      onEvent: (e) => {
        if (e.type === "step") started.set(e.step, performance.now());
      },
    });
    whole.push(performance.now() - t0);
    slot.push((started.get("journal") as number) - (started.get("slot") as number));

    const target = await freshDisk("bmaptool.img");
    const t1 = performance.now();
    await run("bmaptool", ["copy", "--bmap", bmap, rootfs, target]);
    peer.push(performance.now() - t1);
  }
  const [w, s, p] = [median(whole), median(slot), median(peer)];
  console.log(`rootfs.img: 300 MiB of data, ${RUNS} runs, medians`);
  console.log(`bmaptool copy of rootfs.img:        ${p.toFixed(0)} ms`);
  console.log(
    `install, slot A write and verify:   ${s.toFixed(0)} ms   ratio ${(s / p).toFixed(2)} (target <= 1.25)`,
  );
  console.log(
    `install, every step:                ${w.toFixed(0)} ms   ratio ${(w / p).toFixed(2)}`,
  );
} finally {
  await rm(dir, { recursive: true, force: true });
}
