// The default stick boots under OVMF and TCG to its menu, read on the serial console: the
// header with the cluster and release, an entry per manifest machine, and the keys.
import { mkdtemp, rm, truncate, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, expect, it } from "vitest";
import { cachedRelease, cachedStick } from "../../testing/cached-build.ts";
import { startVm } from "./harness.ts";

let dir: string;
let stick: string;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "liken-qemu-menu-"));
  const release = await cachedRelease({ version: "1.0.0" });
  stick = await cachedStick({ manifest: "examples/cluster.toml", releaseDir: release });
}, 300_000);
afterAll(() => rm(dir, { recursive: true, force: true }));

it("boots the stick to the menu on the serial console", async () => {
  const disk = join(dir, "blank.img");
  await writeFile(disk, "");
  await truncate(disk, 32 * 1024 ** 3);
  const vm = await startVm({ stick, disks: [{ path: disk, bus: "virtio" }] });
  await vm.waitFor(/liken-stick: payload \/dev\/sd\w+2 verified/, 120_000);
  await vm.waitFor(/Arrows or j\/k: move/, 120_000);
  const screen = vm.console();
  expect(screen).toContain("cluster mycluster");
  expect(screen).toContain("release 1.0.0");
  for (const name of ["leader-1", "worker-1", "worker-2"]) {
    expect(screen).toContain(`Install as ${name}`);
    expect(screen).toContain(`Wipe and reinstall as ${name}`);
  }
  expect(screen).toContain("The menu waits until you do.");
  await vm.stop();
});
