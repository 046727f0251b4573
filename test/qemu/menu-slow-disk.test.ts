// A machine whose only disk answers slower than any probe's budget (QEMU's block throttling
// at 64 KiB/s: the probe's 22 MiB would take six minutes), as a failing drive that retries
// or virtual media over a slow link does. The menu reads it within its budget each time it
// is asked, says it could not be read, and never writes it (docs/disks.md, "Untrusted
// bytes").
import { mkdtemp, rm, truncate, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, expect, it } from "vitest";
import { contentDigest } from "../disk-files.ts";
import { startVm } from "./harness.ts";
import { KEYS, menuStick, SerialTerminal } from "./menu-screen.ts";

let dir: string;
let stick: string;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "liken-qemu-menu-slow-"));
  stick = await menuStick();
}, 300_000);
afterAll(() => rm(dir, { recursive: true, force: true }));

it("reads a disk slower than its budget as unreadable, twice, and leaves its bytes alone", async () => {
  const disk = join(dir, "slow.img");
  await writeFile(disk, "");
  await truncate(disk, 1024 ** 3);
  const before = await contentDigest(disk);
  const vm = await startVm({
    stick,
    disks: [{ path: disk, bus: "virtio", bytesPerSecond: 64 * 1024 }],
  });
  const term = new SerialTerminal(vm);
  try {
    await vm.waitFor(/liken-stick: payload \/dev\/sd\w+ verified/, 180_000);
    await term.waitFor(["> Install as leader-1", "Arrows or j/k: move"], 120_000);
    // Each Install as reads the disks again: the second read must not wait for the first's
    // reads, which the throttled disk is still answering.
    for (const attempt of [1, 2]) {
      await term.keys(KEYS.enter);
      const screen = await term.waitFor(
        ["Install as leader-1 cannot start.", "> Back to the menu"],
        90_000,
      );
      const flat = screen.replace(/\s+/g, " ");
      expect(flat, `attempt ${attempt}`).toMatch(
        /\/dev\/vda \(foreign\): could not be read \(probe-failed:read:timeout\)/,
      );
      expect(screen).not.toContain("Yes, install");
      await term.keys(KEYS.enter);
      await term.waitFor(["> Install as leader-1", "Arrows or j/k: move"], 60_000);
    }
  } finally {
    term.stop();
    await vm.stop();
  }
  expect(await contentDigest(disk)).toBe(before);
}, 600_000);
