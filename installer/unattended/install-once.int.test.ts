// The stick's unattended install on image files, a folder standing in for efivarfs: it
// installs once, records the install and points BootNext at the disk's ESP; run again, with
// or without --wipe, it finds its record on the disk and writes nothing.
import { mkdir, mkdtemp, open, readFile, rm, stat, truncate, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { decodeLoadOption } from "../../formats/efi-load-option.ts";
import { parseGpt } from "../../formats/gpt.ts";
import { EFI_GLOBAL } from "../../hardware/efi-vars.ts";
import { cli } from "../../test/cli.ts";
import { makeTestRelease } from "../../test/release-fixture.ts";

const MANIFEST = "test/fixtures/manifests/good/small.toml";
const MIB = 1024 * 1024;

let dir: string;
let release: string;
let counter = 0;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "liken-unattended-test-"));
  release = await makeTestRelease(join(dir, "release-1.0.0"), { version: "1.0.0" });
}, 60_000);
afterAll(() => rm(dir, { recursive: true, force: true }));

// A write of any byte moves the file's mtime; reads, opens and locks do not.
const written = async (file: string) => (await stat(file)).mtimeMs;

async function machine() {
  const n = ++counter;
  const disk = join(dir, `disk-${n}.img`);
  await writeFile(disk, "");
  await truncate(disk, 2560 * MIB);
  const efivars = join(dir, `efivars-${n}`);
  await mkdir(efivars);
  const record = join(dir, `payload-${n}`, "installed.json");
  const run = (...extra: string[]) =>
    cli([
      "unattended",
      "--as",
      "leader-1",
      "--manifest",
      MANIFEST,
      "--release",
      release,
      "--status-file",
      join(dir, `status-${n}.json`),
      "--record",
      record,
      "--efivars",
      efivars,
      ...extra,
      disk,
    ]);
  const variable = async (name: string) =>
    (await readFile(join(efivars, `${name}-${EFI_GLOBAL}`))).subarray(4);
  return { disk, efivars, record, run, variable };
}

describe("liken-stick unattended", () => {
  it("installs once, records it, and makes the disk the next boot; again it writes nothing, even with --wipe", async () => {
    const m = await machine();
    const first = await m.run();
    expect(first.code, first.stderr).toBe(0);
    const installId = /installed as leader-1 on \S+, install ([0-9a-f-]{36})/.exec(
      first.stdout,
    )?.[1];
    expect(installId).toBeDefined();
    expect(first.stdout).toContain(`liken-stick: recorded install ${installId} in ${m.record}`);
    expect(first.stdout).toContain(`liken-stick: the firmware boots ${m.disk} next (Boot0000)`);

    const recorded = JSON.parse(await readFile(m.record, "utf8"));
    expect(recorded).toMatchObject({
      kind: "LikenStickInstalls",
      installs: [
        {
          installId,
          cluster: "testcluster",
          machine: "leader-1",
          release: "1.0.0",
          systemDisk: { path: m.disk, serial: null, wwn: null },
        },
      ],
    });

    // Boot0000 names the ESP by its place in the GPT and its GUID; BootNext names Boot0000.
    const head = Buffer.alloc(MIB);
    const handle = await open(m.disk);
    await handle.read(head, 0, MIB, 0);
    await handle.close();
    const esp = parseGpt(head)?.entries.find((e) => e.name === "liken-esp");
    const entry = await m.variable("Boot0000");
    expect(decodeLoadOption(entry)).toEqual({
      active: true,
      description: "liken testcluster/leader-1",
      partitionUuid: esp?.uuid,
      path: "\\EFI\\BOOT\\BOOTX64.EFI",
    });
    expect(entry.readUInt32LE(6 + 2 * 27 + 4)).toBe(esp?.number);
    expect(Number(entry.readBigUInt64LE(6 + 2 * 27 + 8))).toBe((esp?.start ?? 0) / 512);
    expect(Number(entry.readBigUInt64LE(6 + 2 * 27 + 16))).toBe((esp?.size ?? 0) / 512);
    expect((await m.variable("BootNext")).toString("hex")).toBe("0000");

    // The firmware consumed BootNext; the stick boots again, once plainly and once told to wipe.
    const installed = await written(m.disk);
    for (const extra of [[], ["--wipe"]]) {
      await rm(join(m.efivars, `BootNext-${EFI_GLOBAL}`));
      const again = await m.run(...extra);
      expect(again.code).toBe(0);
      expect(again.stdout).toContain(
        `liken-stick: this machine already holds install ${installId} (leader-1) from this stick; nothing written; booting it`,
      );
      expect(again.stdout).not.toContain("»");
      expect((await m.variable("BootNext")).toString("hex")).toBe("0000");
      expect(await written(m.disk)).toBe(installed);
    }
    expect(JSON.parse(await readFile(m.record, "utf8"))).toEqual(recorded);
  }, 180_000);

  it("without its record, finds the same install already there and writes nothing; told to wipe, installs again", async () => {
    const m = await machine();
    expect((await m.run("--then", "poweroff")).code).toBe(0);
    await rm(m.record);
    const installed = await written(m.disk);
    const again = await m.run("--then", "poweroff");
    expect(again.code).toBe(0);
    expect(again.stdout).toMatch(
      /already holds leader-1 with release 1\.0\.0, not installed by this stick; nothing written; it boots at the next power-on/,
    );
    expect(await written(m.disk)).toBe(installed);
    expect((await m.variable("BootNext")).toString("hex")).toBe("0000");

    // Without its record, a wiping stick wipes and installs again, under a new install id.
    const before = JSON.parse((await cli(["inspect", "--json", m.disk])).stdout).claim.installId;
    const wiped = await m.run("--wipe");
    expect(wiped.code, wiped.stderr).toBe(0);
    expect(wiped.stdout).toContain("» erasing");
    const after = JSON.parse((await cli(["inspect", "--json", m.disk])).stdout).claim.installId;
    expect(after).not.toBe(before);
    expect(wiped.stdout).toContain(`recorded install ${after}`);
    expect(JSON.parse(await readFile(m.record, "utf8")).installs).toHaveLength(1);
    // The same Boot#### entry, rewritten for the new ESP.
    expect(decodeLoadOption(await m.variable("Boot0000"))?.description).toBe(
      "liken testcluster/leader-1",
    );
  }, 180_000);

  it("refuses to guess when its record is unreadable: nothing written, exit 1", async () => {
    const m = await machine();
    await mkdir(join(m.record, ".."), { recursive: true });
    await writeFile(m.record, "{ half a record");
    const r = await m.run();
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(
      `liken-stick unattended: ${m.record} is not a record of liken installs, so the stick cannot tell what it installed (delete ${m.record} to let the stick install again, or write the stick again)`,
    );
    // Never written: still a hole from end to end.
    expect((await stat(m.disk)).blocks).toBe(0);
    await expect(readFile(join(m.efivars, `BootNext-${EFI_GLOBAL}`))).rejects.toThrow(/ENOENT/);
  }, 60_000);
});
