// Mistakes caught before a byte is written or built: a stick or boot folder for a release
// the manifest does not name, an --out in a folder that does not exist, and an unattended
// install off the stick that would write this computer's own firmware variables. Each is
// refused with one line, exit 1, and leaves nothing behind.
import { mkdir, mkdtemp, readdir, rm, stat, truncate, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { cli } from "../test/cli.ts";
import { makeTestRelease } from "../test/release-fixture.ts";

// No warnings: the refusal is the whole of stderr.
const MANIFEST = "examples/cluster.toml";
const MIB = 1024 * 1024;

let dir: string;
let release1: string;
let release2: string;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "liken-refused-test-"));
  release1 = await makeTestRelease(join(dir, "release-1.0.0"), { version: "1.0.0" });
  release2 = await makeTestRelease(join(dir, "release-2.0.0"), { version: "2.0.0" });
}, 60_000);
afterAll(() => rm(dir, { recursive: true, force: true }));

/** A new, empty folder: after a refusal it must still be empty. */
async function emptyFolder(name: string): Promise<string> {
  const folder = join(dir, name);
  await mkdir(folder);
  return folder;
}

const exists = (path: string) =>
  stat(path).then(
    () => true,
    () => false,
  );

describe("a release the manifest does not name", () => {
  const line = (release: string) =>
    `release ${release} is 2.0.0, but the [release] version of ${MANIFEST} is 1.0.0 (give --release a folder of release 1.0.0, built by liken-stick release --version 1.0.0 --out DIR, or set version = "2.0.0" under [release] in ${MANIFEST})\n`;

  it.each(["stick.img", "stick.iso"])(
    "image --out %s refuses it and writes nothing",
    async (name) => {
      const out = await emptyFolder(`image-${name}`);
      const r = await cli([
        "image",
        "--manifest",
        MANIFEST,
        "--release",
        release2,
        "--out",
        join(out, name),
      ]);
      expect(r.code).toBe(1);
      expect(r.stderr).toBe(`liken-stick image: ${line(release2)}`);
      expect(r.stdout).toBe("");
      expect(await readdir(out)).toEqual([]);
    },
  );

  it("netboot refuses it and writes nothing", async () => {
    const parent = await emptyFolder("netboot-version");
    const r = await cli([
      "netboot",
      "--manifest",
      MANIFEST,
      "--release",
      release2,
      "--out",
      join(parent, "boot"),
      "--url",
      "http://10.0.0.1/liken/",
    ]);
    expect(r.code).toBe(1);
    expect(r.stderr).toBe(`liken-stick netboot: ${line(release2)}`);
    expect(await readdir(parent)).toEqual([]);
  });
});

describe("--out in a folder that does not exist", () => {
  const cases: [string, (out: string) => string[]][] = [
    ["image", (out) => ["--manifest", MANIFEST, "--release", release1, "--out", out]],
    [
      "netboot",
      (out) => [
        "--manifest",
        MANIFEST,
        "--release",
        release1,
        "--out",
        out,
        "--url",
        "http://10.0.0.1/liken/",
      ],
    ],
    ["release", (out) => ["--version", "1.0.0", "--out", out]],
    ["keys", (out) => ["--out", out]],
  ];

  it.each(cases)("%s refuses it and creates no folder", async (verb, options) => {
    const parent = await emptyFolder(`out-${verb}`);
    const missing = join(parent, "no-such-folder");
    const out = join(missing, verb === "image" ? "x.img" : "x");
    const r = await cli([verb, ...options(out)]);
    expect(r.code).toBe(1);
    expect(r.stderr).toBe(
      `liken-stick ${verb}: --out ${out} is inside ${missing}, which does not exist (create the folder first with mkdir -p ${missing}, or give liken-stick ${verb} an --out in a folder that exists)\n`,
    );
    expect(await readdir(parent)).toEqual([]);
  });

  it("is refused when the folder is a file", async () => {
    const parent = await emptyFolder("out-file");
    const file = join(parent, "a-file");
    await writeFile(file, "");
    const r = await cli(["release", "--version", "1.0.0", "--out", join(file, "r")]);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(`is inside ${file}, which is not a folder`);
    expect(await readdir(parent)).toEqual(["a-file"]);
  });
});

describe("unattended off the stick", () => {
  async function machine(name: string) {
    const folder = await emptyFolder(name);
    const disk = join(folder, "disk.img");
    await writeFile(disk, "");
    await truncate(disk, 2560 * MIB);
    const args = [
      "unattended",
      "--as",
      "leader-1",
      "--manifest",
      MANIFEST,
      "--release",
      release1,
      "--status-file",
      join(folder, "status.json"),
      "--record",
      join(folder, "installed.json"),
    ];
    return { folder, disk, args };
  }

  it("refuses without --efivars before it reads or writes anything", async () => {
    const m = await machine("unattended-no-efivars");
    const r = await cli([...m.args, m.disk], { env: { LIKEN_STICK: "" } });
    expect(r.code).toBe(1);
    expect(r.stdout).toBe("");
    expect(r.stderr).toBe(
      "liken-stick unattended: this is not a booted liken stick, so unattended would write this computer's own boot entries, Boot#### and BootNext in /sys/firmware/efi/efivars (run it from the stick, or give --efivars DIR to name where the boot variables go, such as an empty folder to try it out)\n",
    );
    // No status, no record; the disk still a hole from end to end.
    expect(await readdir(m.folder)).toEqual(["disk.img"]);
    expect((await stat(m.disk)).blocks).toBe(0);
  });

  it("refuses an --efivars folder that does not exist, before it installs", async () => {
    const m = await machine("unattended-missing-efivars");
    const efivars = join(m.folder, "efivars");
    const r = await cli([...m.args, "--efivars", efivars, m.disk]);
    expect(r.code).toBe(1);
    expect(r.stderr).toBe(
      `liken-stick unattended: the firmware's variables are not at ${efivars}: it does not exist (give --efivars a folder that exists and can be written: an efivarfs mount, or a folder to try it out)\n`,
    );
    expect(await readdir(m.folder)).toEqual(["disk.img"]);
    expect((await stat(m.disk)).blocks).toBe(0);
    expect(await exists(efivars)).toBe(false);
  });
});
