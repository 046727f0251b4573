// A machine whose only disk holds an ext4 filesystem, driven over the serial console:
// Install as refuses and lists the disk as foreign; Power off powers the machine off, and
// then the disk holds exactly the bytes it held before.
import { mkdir, mkdtemp, rm, truncate, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, expect, it } from "vitest";
import { run } from "../../tools/exec.ts";
import { contentDigest } from "../disk-files.ts";
import { startVm } from "./harness.ts";
import { KEYS, menuStick, SerialTerminal } from "./menu-screen.ts";

/** Set LIKEN_MENU_CAPTURES=DIR to keep the serial screens docs/install.md shows. */
const CAPTURES = process.env.LIKEN_MENU_CAPTURES;

let dir: string;
let stick: string;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "liken-qemu-menu-foreign-"));
  stick = await menuStick();
}, 300_000);
afterAll(() => rm(dir, { recursive: true, force: true }));

it("refuses Install as on a disk holding ext4, lists it as foreign, and leaves its bytes alone", async () => {
  // An operator's old data: an ext4 filesystem with a file in it, filling the disk.
  const files = join(dir, "files");
  await mkdir(files);
  await writeFile(join(files, "keep-me.txt"), "data liken did not write\n");
  const disk = join(dir, "ext4.img");
  await writeFile(disk, "");
  // 1 GiB: enough to be a target if it were blank, and quick to digest.
  await truncate(disk, 1024 ** 3);
  await run("mkfs.ext4", ["-q", "-F", "-L", "olddata", "-d", files, disk]);
  const before = await contentDigest(disk);

  const started = Date.now();
  const vm = await startVm({ stick, disks: [{ path: disk, bus: "virtio" }] });
  const term = new SerialTerminal(vm);
  try {
    await vm.waitFor(/liken-stick: payload \/dev\/sd\w+ verified/, 180_000);
    await term.waitFor(["> Install as leader-1", "Arrows or j/k: move"], 120_000);
    // An arrow key that the line delivers in two parts is still one key, not Esc.
    await vm.type("\x1b");
    await new Promise((r) => setTimeout(r, 10));
    await vm.type("[B");
    await term.waitFor(["> Install as worker-1"], 30_000);
    await term.keys(KEYS.up);
    await term.waitFor(["> Install as leader-1"], 30_000);
    await term.keys(KEYS.enter);
    const screen = await term.waitFor(
      ["Install as leader-1 cannot start.", "> Back to the menu", "Esc or q: back"],
      60_000,
    );
    const flat = screen.replace(/\s+/g, " ");
    expect(flat).toContain("No blank disk");
    expect(flat).toMatch(/\/dev\/vda \(foreign\): holds data liken did not write/);
    expect(flat).toContain("signature:ext4");
    expect(screen).toContain("> Back to the menu");
    expect(screen).not.toContain("Yes, install");
    if (CAPTURES) {
      await mkdir(CAPTURES, { recursive: true });
      await writeFile(join(CAPTURES, "serial-refused-foreign.txt"), `${screen}\n`);
    }
    // Back to the menu: the refusal wrote nothing and asks nothing more. Power off, the
    // last entry, powers the machine off.
    await term.keys(KEYS.enter);
    await term.waitFor(["> Install as leader-1", "Choose an entry."], 60_000);
    await term.keys(..."jjjjjj");
    await term.waitFor(["> Power off"], 30_000);
    await term.keys(KEYS.enter);
    expect((await vm.waitForExit(120_000)).shutdownReason).toBe("guest-shutdown");
    console.log(`menu-foreign-disk: ${(Date.now() - started) / 1000} s`);
  } finally {
    term.stop();
    await vm.stop();
  }
  expect(await contentDigest(disk)).toBe(before);
}, 600_000);
