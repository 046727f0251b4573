// A mirrored system disk on image files, a folder standing in for efivarfs: the unattended
// install writes both members alike, each claim naming the other and each ESP naming its
// own slot; a third disk that holds data is left byte for byte; both members go into the
// boot order; a wipe erases both, and refuses, writing nothing, when one is not named.
import { createHash } from "node:crypto";
import { createReadStream } from "node:fs";
import { mkdir, mkdtemp, readFile, rm, stat, truncate, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { decodeLoadOption } from "../formats/efi-load-option.ts";
import { EFI_GLOBAL } from "../hardware/efi-vars.ts";
import { cli } from "../test/cli.ts";
import { makeTestRelease } from "../test/release-fixture.ts";
import { run } from "../tools/exec.ts";
import { readFatFile } from "../tools/mtools.ts";

const MANIFEST = "test/fixtures/manifests/good/mirror.toml";
const MIB = 1024 * 1024;

let dir: string;
let release: string;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "liken-mirror-test-"));
  release = await makeTestRelease(join(dir, "release-1.0.0"), { version: "1.0.0" });
}, 60_000);
afterAll(() => rm(dir, { recursive: true, force: true }));

async function blankFile(name: string, size = 2560 * MIB): Promise<string> {
  const file = join(dir, name);
  await writeFile(file, "");
  await truncate(file, size);
  return file;
}

async function sha256(file: string): Promise<string> {
  const hash = createHash("sha256");
  for await (const chunk of createReadStream(file)) hash.update(chunk as Buffer);
  return hash.digest("hex");
}
const written = async (file: string) => (await stat(file)).mtimeMs;
const inspect = async (file: string) => JSON.parse((await cli(["inspect", "--json", file])).stdout);

describe("a mirrored system disk", () => {
  it("is installed on two disks alike, each bootable alone, and the disk with data is left as it was", async () => {
    const [one, two] = [await blankFile("m1.img"), await blankFile("m2.img")];
    const data = await blankFile("data.img", 600 * MIB);
    await run("mkfs.ext4", ["-q", "-F", "-L", "precious", data]);
    const before = await sha256(data);
    const efivars = join(dir, "efivars");
    await mkdir(efivars);
    await writeFile(join(efivars, `BootOrder-${EFI_GLOBAL}`), Buffer.from([7, 0, 0, 0, 9, 0]));
    await writeFile(join(efivars, `BootCurrent-${EFI_GLOBAL}`), Buffer.from([7, 0, 0, 0, 9, 0]));

    const result = await cli([
      "unattended",
      "--as",
      "leader-1",
      "--manifest",
      MANIFEST,
      "--release",
      release,
      "--status-file",
      join(dir, "status.json"),
      "--record",
      join(dir, "payload", "installed.json"),
      "--efivars",
      efivars,
      one,
      two,
      data,
    ]);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toMatch(`installed as leader-1 on ${one} and ${two} (mirrored)`);
    expect(result.stdout).toContain(
      `the firmware boots ${one} next (Boot0000), then ${two} (Boot0001) when it cannot`,
    );
    expect(await sha256(data)).toBe(before);

    const [a, b] = [await inspect(one), await inspect(two)];
    expect(a.claim).toMatchObject({ machine: "leader-1", use: "system", complete: true });
    expect(a.claim.mirror).toEqual({ member: 1, of: 2, peer: { path: two } });
    expect(b.claim.mirror).toEqual({ member: 2, of: 2, peer: { path: one } });
    expect(b.claim.installId).toBe(a.claim.installId);
    const system = ["liken-esp", "liken-a", "liken-b", "liken-journal", "liken-state"];
    expect(b.partitions.map((p: { label: string }) => p.label)).toEqual(system);
    expect(a.partitions.map((p: { label: string }) => p.label)).toEqual([
      ...system,
      "liken-data",
      "liken-scratch",
    ]);
    // Each ESP boots its own disk's slot: the firmware can start either member alone.
    for (const [file, disk] of [
      [one, a],
      [two, b],
    ] as const) {
      const part = (label: string) =>
        disk.partitions.find((p: { label: string }) => p.label === label);
      expect(disk.entries).toHaveLength(1);
      expect(disk.entries[0]).toMatchObject({ slot: "a", version: "1.0.0" });
      expect(disk.slots.a).toMatchObject({ version: "1.0.0", hashMatches: true });
      expect(disk.problems).toEqual([]);
      const entry = await readFatFile(
        file,
        part("liken-esp").start,
        `loader/entries/${disk.entries[0].fileName}`,
      );
      expect(entry).toContain(`root=PARTUUID=${part("liken-a").partUuid.toLowerCase()} `);
    }
    expect(a.partitions[1].partUuid).not.toBe(b.partitions[1].partUuid);
    // identity.json names both members and their partitions, for the boot agent.
    expect(
      a.identity.mirror.members.map((m: { member: number; path: string }) => [m.member, m.path]),
    ).toEqual([
      [1, one],
      [2, two],
    ]);
    expect(b.identity.mirror).toEqual(a.identity.mirror);

    const variable = async (name: string) =>
      (await readFile(join(efivars, `${name}-${EFI_GLOBAL}`))).subarray(4);
    expect(decodeLoadOption(await variable("Boot0000"))?.description).toBe(
      "liken testcluster/leader-1 (mirror 1 of 2)",
    );
    expect(decodeLoadOption(await variable("Boot0001"))?.description).toBe(
      "liken testcluster/leader-1 (mirror 2 of 2)",
    );
    expect((await variable("BootNext")).toString("hex")).toBe("0000");
    // Right after the stick (BootCurrent 9), in member order.
    expect((await variable("BootOrder")).toString("hex")).toBe("0900" + "0000" + "0100");
  }, 120_000);

  it("is wiped whole, and a wipe that is not given both members refuses and writes nothing", async () => {
    const [one, two] = [await blankFile("w1.img"), await blankFile("w2.img")];
    const install = (...args: string[]) =>
      cli([
        "install",
        "--manifest",
        MANIFEST,
        "--as",
        "leader-1",
        "--release",
        release,
        "--status-file",
        join(dir, `status-${args.length}-${Date.now()}.json`),
        ...args,
      ]);
    const first = await install(one, two);
    expect(first.code, first.stderr).toBe(0);
    const id = (await inspect(one)).claim.installId;

    const times = [await written(one), await written(two)];
    const alone = await install("--wipe", one);
    expect(alone.code).toBe(1);
    expect(alone.stderr.trim().split("\n").at(-1)).toBe(
      `liken-stick install: wipe and reinstall would erase ${one}, mirror member 1 of 2 of testcluster/leader-1, without its other member (${two} at install time), which is not here (attach the other member (and name it too, when naming disks) so that both are erased; if it is lost for good, see "A mirrored machine lost a disk" in docs/troubleshoot.md)`,
    );
    expect([await written(one), await written(two)]).toEqual(times);

    const both = await install("--wipe", one, two);
    expect(both.code, both.stderr).toBe(0);
    const [a, b] = [await inspect(one), await inspect(two)];
    expect(a.claim.installId).not.toBe(id);
    expect(b.claim.installId).toBe(a.claim.installId);
    expect([a.claim.mirror.member, b.claim.mirror.member]).toEqual([1, 2]);
  }, 180_000);

  it("is repaired with a blank disk in the missing member's place, and never with a disk that holds data", async () => {
    const [one, two] = [await blankFile("r1.img"), await blankFile("r2.img")];
    const installed = await cli([
      "install",
      "--manifest",
      MANIFEST,
      "--as",
      "leader-1",
      "--release",
      release,
      "--status-file",
      join(dir, "status-repair.json"),
      one,
      two,
    ]);
    expect(installed.code, installed.stderr).toBe(0);
    const lost = await inspect(two);
    const repair = (...paths: string[]) =>
      cli(["repair", "--manifest", MANIFEST, "--as", "leader-1", ...paths]);

    const whole = await repair(one, two);
    expect(whole.code).toBe(1);
    expect(whole.stderr).toContain(
      `the mirror of testcluster/leader-1 is whole: ${one} and ${two} are both here`,
    );

    // Member 2 is gone; the only other disk holds a filesystem.
    const data = await blankFile("r-data.img", 600 * MIB);
    await run("mkfs.ext4", ["-q", "-F", data]);
    const before = await sha256(data);
    const times = [await written(one), await written(data)];
    const refused = await repair(one, data);
    expect(refused.code).toBe(1);
    expect(refused.stderr.trim().split("\n").at(-1)).toMatch(
      new RegExp(
        `no blank disk can take member 2 of the mirror of testcluster/leader-1: ${data} foreign \\(signature:ext4@`,
      ),
    );
    expect([await written(one), await written(data)]).toEqual(times);
    expect(await sha256(data)).toBe(before);

    const fresh = await blankFile("r3.img", 3072 * MIB);
    const repaired = await repair(one, data, fresh);
    expect(repaired.code, repaired.stderr).toBe(0);
    expect(repaired.stdout).toContain(
      `liken-stick: ${fresh} becomes member 2 of the mirror beside ${one}`,
    );
    expect(await sha256(data)).toBe(before);
    const [a, c] = [await inspect(one), await inspect(fresh)];
    expect(c.claim).toMatchObject({ installId: a.claim.installId, complete: true, use: "system" });
    expect(c.claim.mirror).toEqual({ member: 2, of: 2, peer: { path: one } });
    expect(a.claim.mirror).toEqual({ member: 1, of: 2, peer: { path: fresh } });
    // The new member is the lost one as identity.json knows it: the same PARTUUIDs.
    const uuids = (d: { partitions: { label: string; partUuid: string }[] }) =>
      d.partitions.map((p) => [p.label, p.partUuid]);
    expect(uuids(c)).toEqual(uuids(lost));
    expect(c.slots.a).toMatchObject({ version: "1.0.0", hashMatches: true });
    expect(c.entries).toEqual(a.entries);
    expect(c.identity).toEqual(a.identity);
    expect(c.problems).toEqual([]);
    const esp = c.partitions[0].start;
    const entry = await readFatFile(fresh, esp, `loader/entries/${c.entries[0].fileName}`);
    expect(entry).toContain(`root=PARTUUID=${c.partitions[1].partUuid.toLowerCase()} `);
  }, 240_000);

  it("is repaired unattended (liken.repair=1) once: a stick left in finds it whole and writes nothing", async () => {
    const [one, two] = [await blankFile("u1.img"), await blankFile("u2.img")];
    const efivars = join(dir, "efivars-repair");
    await mkdir(efivars);
    const unattended = (...args: string[]) =>
      cli([
        "unattended",
        "--as",
        "leader-1",
        "--manifest",
        MANIFEST,
        "--release",
        release,
        "--status-file",
        join(dir, "status-u.json"),
        "--record",
        join(dir, "payload-u", "installed.json"),
        "--efivars",
        efivars,
        ...args,
      ]);
    const installed = await unattended(one, two);
    expect(installed.code, installed.stderr).toBe(0);
    const fresh = await blankFile("u3.img");
    const repaired = await unattended("--repair", one, fresh);
    expect(repaired.code, repaired.stderr).toBe(0);
    expect(repaired.stdout).toContain(
      `liken-stick: ${fresh} becomes member 2 of the mirror beside ${one}`,
    );
    expect(repaired.stdout).toContain(
      `the firmware boots ${one} next (Boot0000), then ${fresh} (Boot0001) when it cannot`,
    );
    expect((await inspect(fresh)).claim.mirror.member).toBe(2);

    const times = [await written(one), await written(fresh)];
    const again = await unattended("--repair", one, fresh);
    expect(again.code, again.stderr).toBe(0);
    expect(again.stdout).toContain(
      `liken-stick: the mirror of testcluster/leader-1 is whole: ${one} and ${fresh} are both here; nothing written`,
    );
    expect([await written(one), await written(fresh)]).toEqual(times);
  }, 240_000);
});
