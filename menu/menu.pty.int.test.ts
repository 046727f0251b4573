import { copyFile, mkdir, mkdtemp, readFile, rm, truncate, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { BUNDLE, cli } from "../test/cli.ts";
import { contentDigest, sparseFile } from "../test/disk-files.ts";
import { makeTestRelease } from "../test/release-fixture.ts";
import {
  capturePane,
  killServer,
  killSession,
  newSession,
  sendKeys,
  type TmuxServer,
} from "../testing/tmux.ts";
import { run } from "../tools/exec.ts";

const MANIFEST = "test/fixtures/manifests/good/small.toml";
const MIB = 1024 * 1024;
const DEADLINE_MS = 30_000;
const ENDED = "the menu ended with exit code";
/** Set LIKEN_MENU_CAPTURES=DIR to keep the screens docs/menu.md shows. */
const CAPTURES = process.env.LIKEN_MENU_CAPTURES;

let dir: string;
let release: string;
let server: TmuxServer;
let counter = 0;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "menu-"));
  release = await makeTestRelease(join(dir, "release"), { version: "1.0.0" });
  server = { socket: `liken-menu-test-${process.pid}`, config: "/dev/null" };
}, 60_000);

afterAll(async () => {
  if (server) await killServer(server);
  await rm(dir, { recursive: true, force: true });
});

async function blankDisk(): Promise<string> {
  const file = join(dir, `disk-${++counter}.img`);
  await writeFile(file, "");
  await truncate(file, 2560 * MIB);
  return file;
}

const sha256 = contentDigest;

/** The text as a pattern in which every space may be any whitespace: a wrapped line matches. */
function loose(text: string): RegExp {
  return new RegExp(
    text
      .split(" ")
      .map((w) => w.replace(/[.*+?^${}()|[\]\\]/g, "\\$&"))
      .join("\\s+"),
  );
}

interface MenuOptions {
  /** The manifest; small.toml by default. */
  readonly manifest?: string;
  readonly cols?: number;
  readonly rows?: number;
  readonly term?: string;
  readonly release?: string;
  /** Make the kernel report 0x0, as a serial console does. */
  readonly zeroSize?: boolean;
}

interface Pane {
  readonly name: string;
  readonly rows: number;
  screen(): Promise<string[]>;
  /** Polls until the screen holds every text given; returns the screen. */
  waitFor(...texts: (string | RegExp)[]): Promise<string>;
  keys(...names: string[]): Promise<void>;
  type(text: string): Promise<void>;
  /** Kept as docs/menu.md's capture NAME when LIKEN_MENU_CAPTURES is set. */
  keep(name: string): Promise<void>;
}

async function startMenu(disks: readonly string[], options: MenuOptions = {}): Promise<Pane> {
  const name = `menu-${++counter}`;
  const cols = options.cols ?? 80;
  const rows = options.rows ?? 24;
  const command = [
    "env",
    "-u",
    "TMUX", // blessed asks a tmux it runs in for its version; the stick has none
    `TERM=${options.term ?? "linux"}`,
    process.execPath,
    BUNDLE,
    "menu",
    "--manifest",
    options.manifest ?? MANIFEST,
    "--release",
    options.release ?? release,
    "--status-file",
    join(dir, `${name}-status.json`),
    ...disks,
  ];
  // The pane stays after the menu ends and says how it ended.
  const script = `${options.zeroSize ? "stty rows 0 cols 0; " : ""}"$@"; echo "${ENDED} $?"; exec sleep 3600`;
  const argv = ["sh", "-c", script, "sh", ...command];
  await newSession(server, name, { cols, rows }, argv, process.cwd());
  const screen = async () => {
    const lines = (await capturePane(server, name)).replace(/\n$/, "").split("\n");
    while (lines.length < rows) lines.push("");
    return lines;
  };
  const pane: Pane = {
    name,
    rows,
    screen,
    async waitFor(...texts) {
      const until = Date.now() + DEADLINE_MS;
      let last = "";
      for (;;) {
        last = (await screen()).join("\n");
        if (texts.every((t) => (typeof t === "string" ? last.includes(t) : t.test(last))))
          return last;
        if (Date.now() > until) {
          throw new Error(
            `the screen did not show ${texts.join(" and ")} within ${DEADLINE_MS} ms:\n${last}`,
          );
        }
        await new Promise((r) => setTimeout(r, 50));
      }
    },
    async keys(...names) {
      for (const k of names) await sendKeys(server, name, [k]);
    },
    async type(text) {
      await sendKeys(server, name, [text], { literal: true });
    },
    async keep(capture) {
      if (!CAPTURES) return;
      await mkdir(CAPTURES, { recursive: true });
      // The random part of the folder's name, as "a1b2c3": same length, same wrapping.
      const fixed = `${dir.slice(0, -6)}a1b2c3`;
      const text = (await screen()).map((l) => l.replaceAll(dir, fixed)).join("\n");
      await writeFile(join(CAPTURES, `${capture}.txt`), `${text}\n`);
    },
  };
  return pane;
}

async function withMenu(
  disks: readonly string[],
  options: MenuOptions,
  body: (pane: Pane) => Promise<void>,
): Promise<void> {
  const pane = await startMenu(disks, options);
  try {
    await body(pane);
  } finally {
    await killSession(server, pane.name);
  }
}

const MAIN = "Choose an entry. The menu waits until you do.";
const ENTRIES = [
  "> Install as leader-1",
  "  Install as worker-1",
  "  Wipe and reinstall as leader-1",
  "  Wipe and reinstall as worker-1",
  "  Hardware report",
  "  Shell",
  "  Power off",
];

describe("the first screen", () => {
  it.each(["linux", "vt220", "vt100", "xterm-256color"])(
    "shows the header, every entry and the keys at 80x24 on TERM=%s",
    async (term) => {
      const disk = await blankDisk();
      await withMenu([disk], { term }, async (pane) => {
        await pane.waitFor(MAIN);
        const lines = await pane.screen();
        expect(lines).toHaveLength(24);
        expect(lines[0]).toBe("liken stick   cluster testcluster   release 1.0.0");
        expect(lines[1]).toMatch(/^Machine: .+ {3}serial .+$/);
        expect(lines[2]).toBe("-".repeat(79));
        const at = lines.indexOf(ENTRIES[0] as string);
        expect(lines.slice(at, at + ENTRIES.length)).toEqual(ENTRIES);
        expect(lines[23]).toBe("Arrows or j/k: move   Enter: select");
        for (const line of lines) expect(line.length).toBeLessThan(80);
        if (term === "linux") await pane.keep("first-screen");
      });
    },
  );

  it("takes the size of a larger terminal (120x40)", async () => {
    const disk = await blankDisk();
    await withMenu([disk], { cols: 120, rows: 40 }, async (pane) => {
      await pane.waitFor(MAIN);
      const lines = await pane.screen();
      expect(lines[2]).toBe("-".repeat(119));
      expect(lines[39]).toBe("Arrows or j/k: move   Enter: select");
      expect(lines).toContain(ENTRIES[0]);
    });
  });

  it("asks the terminal its size when the kernel says 0x0, as on a serial line", async () => {
    const disk = await blankDisk();
    await withMenu([disk], { cols: 100, rows: 30, term: "vt220", zeroSize: true }, async (pane) => {
      await pane.waitFor(MAIN);
      const lines = await pane.screen();
      expect(lines[2]).toBe("-".repeat(99));
      expect(lines[29]).toBe("Arrows or j/k: move   Enter: select");
    });
  });
});

describe("install as", () => {
  it("shows the layout, goes back on No, installs on Yes, and says what to do next", async () => {
    const disk = await blankDisk();
    await withMenu([disk], {}, async (pane) => {
      await pane.waitFor(MAIN);
      await pane.keys("Enter");
      await pane.waitFor(
        "Install leader-1 of cluster testcluster, release 1.0.0.",
        `${disk}  2.5 GiB  system disk, written from blank`,
        "Install as leader-1? Nothing is written until you choose Yes.",
        "> No, back to the menu",
      );
      await pane.keep("confirm-install");
      await pane.keys("Enter");
      await pane.waitFor(MAIN, "> Install as leader-1");
      expect((await cli(["disks", "--json", disk])).stdout).toContain('"verdict": "blank"');

      await pane.keys("Enter");
      await pane.waitFor("> No, back to the menu");
      await pane.keys("Down");
      await pane.waitFor("> Yes, install as leader-1");
      await pane.keys("Enter");
      await pane.waitFor(
        "Installed as leader-1. Remove the stick and power cycle.",
        "  done     marking the install complete",
        "> Power off",
      );
      await pane.keep("installed");
      const disks = JSON.parse((await cli(["disks", "--json", disk])).stdout);
      expect(disks[0].claim).toMatchObject({ machine: "leader-1", complete: true });

      await pane.keys("Down", "Enter");
      await pane.waitFor(MAIN, "This machine is installed as leader-1 (release 1.0.0).");
    });
  }, 120_000);

  it("says why on a disk holding ext4 with no blank disk, and leaves it as it was", async () => {
    const disk = await blankDisk();
    await run("mkfs.ext4", ["-q", "-F", disk]);
    const before = await sha256(disk);
    await withMenu([disk], {}, async (pane) => {
      await pane.waitFor(MAIN);
      await pane.keys("Enter");
      await pane.waitFor(
        "Install as leader-1 cannot start.",
        "No blank disk: every disk holds data or cannot be a target.",
        `${disk} (foreign): holds data liken did not write`,
        "> Back to the menu",
      );
      await pane.keep("refused");
      await pane.keys("Enter", "Down", "Down", "Enter");
      await pane.waitFor("Wipe and reinstall as leader-1 cannot start.");
      await pane.keys("Escape");
      await pane.waitFor(MAIN);
    });
    expect(await sha256(disk)).toBe(before);
  }, 120_000);
});

describe("a machine with 24 disks", () => {
  let jbod: string;
  let files: string[];

  // As a JBOD's disks read: sorted by name, the two written (07 the system disk, too small
  // for the role "data", which goes to 15) sit among disks holding data (GPT, ext4 on 05 and
  // 10), two too small to be a target (04, 12) and a blank one the layout does not need (20).
  const MIB_OF: Readonly<Record<number, number>> = { 4: 256, 7: 1536, 12: 256, 15: 2560, 20: 2560 };
  const BLANK = [4, 7, 12, 15, 20];
  beforeAll(async () => {
    jbod = join(dir, "jbod");
    await mkdir(jbod);
    files = [];
    for (let i = 1; i <= 24; i++) {
      const file = join(jbod, `disk-${String(i).padStart(2, "0")}.img`);
      await sparseFile(file, (MIB_OF[i] ?? 1024) * MIB);
      if (i === 5 || i === 10) await run("mkfs.ext4", ["-q", "-F", file]);
      else if (!BLANK.includes(i))
        await run("sfdisk", ["-q", file], { input: "label: gpt\nsize=100M\n" });
      files.push(file);
    }
  }, 60_000);

  it.each([
    [80, 24],
    [100, 30],
  ])(
    "shows the disks written and the question at %ix%i, the rest counted",
    async (cols, rows) => {
      await withMenu(files, { cols, rows }, async (pane) => {
        await pane.waitFor(MAIN);
        await pane.keys("Enter");
        const disk = (n: string) => join(jbod, `disk-${n}.img`);
        // At 80 columns a disk's line wraps: any run of spaces may be a line break.
        const screen = await pane.waitFor(
          "It writes 2 disks:",
          loose(`${disk("07")} 1.5 GiB system disk, role scratch, written from blank`),
          loose(`${disk("15")} 2.5 GiB storage disk, role data, written from blank`),
          "Left out: 22 disks (19 foreign, 2 ineligible, 1 blank), each with why below.",
          "Install as leader-1? Nothing is written until you choose Yes.",
          "> No, back to the menu",
        );
        const lines = screen.split("\n");
        expect(lines).toHaveLength(rows);
        expect(lines.at(-3)).toBe("> No, back to the menu");
        expect(lines.at(-2)).toBe("  Yes, install as leader-1");
        for (const line of lines) expect(line.length).toBeLessThan(cols);
        if (cols === 80) await pane.keep("confirm-install-24-disks");
        await pane.keys("Escape");
        await pane.waitFor(MAIN);
      });
    },
    120_000,
  );
});

describe("wipe and reinstall as", () => {
  it("shows what it erases, refuses a wrong name, and goes on with the right one", async () => {
    const disk = await blankDisk();
    const first = await cli([
      "install",
      "--manifest",
      MANIFEST,
      "--as",
      "leader-1",
      "--release",
      release,
      "--status-file",
      join(dir, "first-status.json"),
      disk,
    ]);
    expect(first.code).toBe(0);
    const before = await sha256(disk);
    await withMenu([disk], {}, async (pane) => {
      await pane.waitFor(MAIN, "This machine is installed as leader-1 (release 1.0.0).");
      await pane.keep("installed-machine");
      await pane.keys("Down", "Down", "Enter");
      await pane.waitFor(
        "Wipe and reinstall as leader-1 ERASES this disk:",
        `  ${disk}  2.5 GiB`,
        /the liken install of testcluster\/leader-1, release 1\.0\.0, installed\s+\d{4}-\d\d-\d\d \d\d:\d\d UTC/,
        "> No, back to the menu",
      );
      await pane.keep("confirm-wipe");
      await pane.keys("Down", "Enter");
      await pane.waitFor(`To erase ${disk} and reinstall`, "Machine name: _");
      await pane.type("worker-1");
      await pane.keys("Enter");
      await pane.waitFor('"worker-1" is not leader-1. Nothing was erased.', "Machine name: _");
      await pane.keep("wrong-name");
      expect(await sha256(disk)).toBe(before);

      await pane.type("leader-1");
      await pane.keys("Enter");
      await pane.waitFor(
        "Installed as leader-1. Remove the stick and power cycle.",
        `  done     erasing the liken install on ${disk}`,
      );
    });
    expect(await sha256(disk)).not.toBe(before);
  }, 120_000);
});

describe("repair the mirror", () => {
  const MIRROR = "test/fixtures/manifests/good/mirror.toml";
  const inspect = async (file: string) =>
    JSON.parse((await cli(["inspect", "--json", file])).stdout);

  it("refuses a disk that holds ext4, writing nothing, and takes a blank one as the missing member", async () => {
    const [one, two] = [await blankDisk(), await blankDisk()];
    const installed = await cli([
      "install",
      "--manifest",
      MIRROR,
      "--as",
      "leader-1",
      "--release",
      release,
      "--status-file",
      join(dir, "mirror-status.json"),
      one,
      two,
    ]);
    expect(installed.code, installed.stderr).toBe(0);
    const lost = await inspect(two);
    const survivor = await sha256(one);

    // Member 2 is gone, and the disk in its place holds a filesystem.
    const data = await blankDisk();
    await run("mkfs.ext4", ["-q", "-F", data]);
    const before = await sha256(data);
    await withMenu([one, data], { manifest: MIRROR }, async (pane) => {
      await pane.waitFor(MAIN, "  Repair the mirror of leader-1");
      await pane.keys("Down", "Down");
      await pane.waitFor("> Repair the mirror of leader-1");
      await pane.keys("Enter");
      await pane.waitFor(
        "Repair the mirror of leader-1 cannot start.",
        loose(
          `No blank disk can take member 2 of the mirror of testcluster/leader-1: ${data} foreign`,
        ),
        loose("Attach a blank disk at least as large as the surviving member;"),
        "Nothing was written.",
        "> Back to the menu",
      );
      await pane.keep("repair-refused");
      await pane.keys("Enter");
      await pane.waitFor(MAIN, "> Repair the mirror of leader-1");
    });
    expect(await sha256(data)).toBe(before);
    expect(await sha256(one)).toBe(survivor);

    const blank = await blankDisk();
    await withMenu([one, blank], { manifest: MIRROR }, async (pane) => {
      // The entry shows once the disks are read.
      await pane.waitFor(MAIN, "  Repair the mirror of leader-1");
      await pane.keys("Down", "Down");
      await pane.waitFor("> Repair the mirror of leader-1");
      await pane.keys("Enter");
      await pane.waitFor(
        loose(
          `${blank} (blank, 2.5 GiB) becomes member 2 of the mirror of testcluster/leader-1 beside ${one}.`,
        ),
        "Repair the mirror of leader-1? Nothing is written until you choose Yes.",
        "> No, back to the menu",
      );
      await pane.keep("confirm-repair");
      await pane.keys("Down");
      await pane.waitFor("> Yes, repair the mirror");
      await pane.keys("Enter");
      await pane.waitFor(
        "The mirror of leader-1 is whole again. Remove the stick and power cycle.",
        "  copying slot A",
        loose(`the mirror of leader-1 is whole again: ${one} and ${blank}`),
        "> Power off",
      );
      await pane.keep("repaired");
      await pane.keys("Down", "Enter");
      const main = await pane.waitFor(MAIN, "  Wipe and reinstall as leader-1");
      expect(main).not.toContain("Repair the mirror");
    });
    const [a, b] = [await inspect(one), await inspect(blank)];
    expect(b.claim).toMatchObject({ installId: a.claim.installId, complete: true, use: "system" });
    expect(b.claim.mirror).toEqual({ member: 2, of: 2, peer: { path: one } });
    expect(a.claim.mirror).toEqual({ member: 1, of: 2, peer: { path: blank } });
    // The lost member's PARTUUIDs, as identity.json names them.
    const uuids = (d: { partitions: { label: string; partUuid: string }[] }) =>
      d.partitions.map((p) => [p.label, p.partUuid]);
    expect(uuids(b)).toEqual(uuids(lost));
    expect(b.slots.a).toMatchObject({ version: "1.0.0", hashMatches: true });
    expect(b.problems).toEqual([]);
  }, 180_000);
});

describe("a failed install", () => {
  it("shows the error and the disks, holds, and Retry after the fix installs", async () => {
    const broken = join(dir, "release-broken");
    await mkdir(broken, { recursive: true });
    for (const f of [
      "release.toml",
      "vmlinuz",
      "initrd.img",
      "rootfs.img",
      "systemd-bootx64.efi",
      "boot-modules.json",
    ]) {
      await copyFile(join(release, f), join(broken, f));
    }
    const kernel = await readFile(join(release, "vmlinuz"));
    const corrupted = Buffer.from(kernel);
    corrupted[100] = (corrupted[100] as number) ^ 0xff;
    await writeFile(join(broken, "vmlinuz"), corrupted);
    const disk = await blankDisk();

    await withMenu([disk], { release: broken }, async (pane) => {
      await pane.waitFor(MAIN);
      await pane.keys("Enter");
      await pane.waitFor("> No, back to the menu");
      await pane.keys("Down", "Enter");
      const failed = await pane.waitFor(
        "Install as leader-1 failed while verifying the release:",
        "vmlinuz",
        "PATH",
        "VERDICT",
        "The console holds here; nothing reboots.",
        "> Retry",
      );
      expect(failed).toMatch(
        new RegExp(`${disk.replaceAll(".", "\\.")}\\s+2\\.5 GiB\\s+-\\s+-\\s+blank`),
      );
      await pane.keep("failed");
      // It holds: the same screen, whatever the time.
      await new Promise((r) => setTimeout(r, 1500));
      expect((await pane.screen()).join("\n")).toBe(failed);

      await writeFile(join(broken, "vmlinuz"), kernel);
      await pane.keys("Enter");
      await pane.waitFor("Installed as leader-1. Remove the stick and power cycle.");
    });
    const disks = JSON.parse((await cli(["disks", "--json", disk])).stdout);
    expect(disks[0].claim).toMatchObject({ machine: "leader-1", complete: true });
  }, 120_000);
});

describe("the other entries", () => {
  it("lends the terminal to a shell and comes back to the menu", async () => {
    const disk = await blankDisk();
    await withMenu([disk], {}, async (pane) => {
      await pane.waitFor(MAIN);
      await pane.keys("End", "Up");
      await pane.waitFor("> Shell");
      await pane.keys("Enter");
      await pane.waitFor("liken stick shell: type exit to go back to the menu.");
      await pane.type("echo shell-$((6*7))");
      await pane.keys("Enter");
      await pane.waitFor("shell-42");
      await pane.type("exit");
      await pane.keys("Enter");
      await pane.waitFor(MAIN, "> Shell");
    });
  });

  it("shows the hardware report and comes back", async () => {
    const disk = await blankDisk();
    await withMenu([disk], {}, async (pane) => {
      await pane.waitFor(MAIN);
      await pane.keys("End", "Up", "Up");
      await pane.waitFor("> Hardware report");
      await pane.keys("Enter");
      await pane.waitFor("> Back to the menu");
      await pane.keys("q");
      await pane.waitFor(MAIN, "> Hardware report");
    });
  }, 60_000);

  it("ends the menu with exit code 0 on Power off when not on the stick", async () => {
    const disk = await blankDisk();
    await withMenu([disk], {}, async (pane) => {
      await pane.waitFor(MAIN);
      await pane.keys("End", "Enter");
      await pane.waitFor(`${ENDED} 0`);
    });
  });
});
