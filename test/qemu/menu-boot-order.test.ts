// The boot order end to end, as a person at a serial terminal does it: the stick is first
// in the boot order, the menu installs leader-1 on the one blank disk; a power cycle with
// the stick still in brings the menu back, whose header says the machine is installed and
// to remove the stick; with the stick pulled, the machine boots liken from its own disk.
// Keys go to the serial port and the screen is read from it (menu-screen.ts), nothing else.
import { mkdir, mkdtemp, rm, truncate, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, expect, it } from "vitest";
import { cli } from "../cli.ts";
import { startVm } from "./harness.ts";
import { KEYS, menuStick, row, SerialTerminal } from "./menu-screen.ts";

/** Set LIKEN_MENU_CAPTURES=DIR to keep the serial screens docs/install.md shows. */
const CAPTURES = process.env.LIKEN_MENU_CAPTURES;

let dir: string;
let stick: string;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "liken-qemu-menu-boot-"));
  stick = await menuStick();
}, 300_000);
afterAll(() => rm(dir, { recursive: true, force: true }));

async function keep(name: string, screen: string): Promise<void> {
  if (!CAPTURES) return;
  await mkdir(CAPTURES, { recursive: true });
  await writeFile(join(CAPTURES, `${name}.txt`), `${screen}\n`);
}

it("installs leader-1 from the menu; with the stick still in the menu says so; without it the disk boots liken 1.0.0", async () => {
  const disk = join(dir, "disk.img");
  await writeFile(disk, "");
  await truncate(disk, 4 * 1024 ** 3);
  const started = Date.now();
  const vm = await startVm({
    stick,
    disks: [{ path: disk, bus: "virtio" }],
    relaunchOnReboot: true,
  });
  const term = new SerialTerminal(vm);
  try {
    // The first boot: the menu, on the blank disk.
    await vm.waitFor(/liken-stick: payload \/dev\/sd\w+ verified/, 180_000);
    let screen = await term.waitFor(["> Install as leader-1", "Arrows or j/k: move"], 120_000);
    expect(screen).toContain("cluster testcluster   release 1.0.0");
    expect(screen).not.toContain("This machine is installed");
    await keep("serial-main", screen);

    await term.keys(KEYS.enter);
    screen = await term.waitFor(
      ["Install as leader-1? Nothing is written until you choose Yes.", "> No, back to the menu"],
      60_000,
    );
    expect(screen).toMatch(/\/dev\/vda\s+4 GiB\s+system disk, written from blank/);
    await keep("serial-confirm-install", screen);
    await term.keys(KEYS.down);
    await term.waitFor(["> Yes, install as leader-1"], 30_000);
    await term.keys(KEYS.enter);
    screen = await term.waitFor(
      ["Installed as leader-1. Remove the stick and power cycle.", "> Power off"],
      480_000,
    );
    expect(screen).toMatch(/done\s+marking the install complete/);
    await keep("serial-installed", screen);
    const installedAt = Date.now();

    // Power cycle with the stick still in: the stick boots first, and its menu says that
    // this machine is installed. This time a 100x30 terminal sits on the serial port: the
    // menu asks it its size (the kernel says 0x0) and fills it.
    await vm.reset();
    term.forget({ cols: 100, rows: 30 });
    await vm.waitFor(/liken-stick: payload \/dev\/sd\w+ verified/, 180_000);
    screen = await term.waitFor(
      [/This machine is installed as leader-1/, "Arrows or j/k"],
      120_000,
    );
    expect(row(screen, 3)).toBe(
      "This machine is installed as leader-1 (release 1.0.0). Remove the stick and power cycle.",
    );
    expect(row(screen, 30)).toBe("Arrows or j/k: move   Enter: select");
    expect(row(screen, 4)).toBe("-".repeat(99));

    // Pull the stick and power cycle: the machine boots from its own disk.
    await vm.pullStick();
    await vm.reset();
    expect(await vm.waitFor(/^liken 1\.0\.0 slot a up$/, 240_000)).toBe("liken 1.0.0 slot a up");
    expect(vm.boots).toBe(3);
    console.log(
      `menu-boot-order: install ${(installedAt - started) / 1000} s, total ${(Date.now() - started) / 1000} s`,
    );
  } finally {
    term.stop();
    await vm.stop();
  }

  const inspected = JSON.parse((await cli(["inspect", "--json", disk])).stdout);
  expect(inspected.claim).toMatchObject({
    cluster: "testcluster",
    machine: "leader-1",
    complete: true,
  });
  expect(inspected.slots.a).toEqual({ version: "1.0.0", hashMatches: true });
}, 900_000);
