// The two disks of a mirror kept in step, on folders and image files standing in for each
// disk's ESP, state partition and slots: what the booted disk was written (a staged slot,
// systemd-boot's counter rename) reaches the peer with the peer's PARTUUIDs; a peer that
// refuses a write is marked failed and never fails the boot; a booted disk that is behind
// is brought up to the peer, and the machine reboots.
import { mkdir, mkdtemp, open, readdir, readFile, rename, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { entryFileName } from "../formats/boot-entries.ts";
import { type ReleaseInfo, releaseFiles, requireRelease } from "../formats/release.ts";
import { writeReleaseToml } from "../formats/release-toml.ts";
import { stagedEntry } from "./boot-plan.ts";
import { applyEntryActions, installSlotFiles, writeMirrorGeneration } from "./esp.ts";
import type { MirrorDisk } from "./mirror-peer.ts";
import { keepInStep, type PeerDisk } from "./mirror-sync.ts";
import type { Slot } from "./types.ts";

const SLOT_BYTES = 2 * 1024 * 1024;
let work: string;
let said: string[];
let failures: string[];

beforeEach(async () => {
  work = await mkdtemp(join(tmpdir(), "liken-mirror-"));
  said = [];
  failures = [];
});

afterEach(async () => {
  await rm(work, { recursive: true, force: true });
});

async function fakeRelease(version: string): Promise<ReleaseInfo> {
  const dir = join(work, "releases", version);
  await mkdir(dir, { recursive: true });
  for (const name of releaseFiles("amd64")) {
    const size = name === "rootfs.img" ? SLOT_BYTES / 2 : 1000;
    await writeFile(join(dir, name), Buffer.alloc(size, `${version} ${name} `));
  }
  await writeReleaseToml(dir, version, "6.1.0-test-amd64", {
    rootHash: "ab".repeat(32),
    dataBlocks: 1,
  });
  return requireRelease(dir);
}

/** A disk as the installer leaves it: `release` in slot a, its proven entry, a status document. */
async function installedDisk(n: 1 | 2, release: ReleaseInfo): Promise<MirrorDisk> {
  const root = join(work, `disk${n}`);
  const disk: MirrorDisk = {
    esp: join(root, "esp"),
    state: join(root, "state"),
    slots: {
      a: {
        device: join(root, "a.img"),
        disk: `vd${n}`,
        label: "liken-a",
        partUuid: `${n}aaaaaaa-0000-4000-8000-00000000000${n}`,
        size: SLOT_BYTES,
      },
      b: {
        device: join(root, "b.img"),
        disk: `vd${n}`,
        label: "liken-b",
        partUuid: `${n}bbbbbbb-0000-4000-8000-00000000000${n}`,
        size: SLOT_BYTES,
      },
    },
  };
  await mkdir(join(disk.esp, "loader/entries"), { recursive: true });
  await mkdir(join(disk.state, "status"), { recursive: true });
  for (const slot of ["a", "b"] as const)
    await writeFile(disk.slots[slot].device, Buffer.alloc(SLOT_BYTES));
  await writeSlot(disk, "a", release);
  await applyEntryActions(
    disk.esp,
    [
      {
        op: "write",
        fileName: entryFileName("a", release.version),
        slot: "a",
        version: release.version,
        rank: "proven",
      },
    ],
    partUuids(disk),
  );
  await writeFile(join(disk.state, "status/status.json"), `{"version":"${release.version}"}\n`);
  return disk;
}

function partUuids(disk: MirrorDisk): Record<Slot, string> {
  return { a: disk.slots.a.partUuid, b: disk.slots.b.partUuid };
}

/** What staging writes: the slot's partition, then its files on the ESP, then its counted entry. */
async function stage(disk: MirrorDisk, slot: Slot, release: ReleaseInfo): Promise<void> {
  await writeSlot(disk, slot, release);
  await applyEntryActions(disk.esp, [stagedEntry(slot, release.version)], partUuids(disk));
}

async function writeSlot(disk: MirrorDisk, slot: Slot, release: ReleaseInfo): Promise<void> {
  const handle = await open(disk.slots[slot].device, "r+");
  await handle.write(await readFile(join(release.dir, "rootfs.img")), 0, undefined, 0);
  await handle.close();
  await installSlotFiles(disk.esp, slot, release);
}

function peerOf(disk: MirrorDisk, booted: 1 | 2 = 1): PeerDisk {
  return {
    places: { booted, peer: booted === 1 ? 2 : 1 },
    usable: true,
    disk: () => disk,
    fail: (what: string, error: unknown) => failures.push(`${what}: ${(error as Error).message}`),
  };
}

async function entries(disk: MirrorDisk): Promise<Record<string, string>> {
  const dir = join(disk.esp, "loader/entries");
  const names = (await readdir(dir)).sort();
  return Object.fromEntries(
    await Promise.all(names.map(async (n) => [n, await readFile(join(dir, n), "utf8")])),
  );
}

const generation = (disk: MirrorDisk) =>
  readFile(join(disk.esp, "liken/mirror-generation"), "utf8").catch(() => null);
const slotBytes = (disk: MirrorDisk, slot: Slot) => readFile(disk.slots[slot].device);
const say = (line: string) => said.push(line);

describe("keepInStep", () => {
  it("carries a staged slot and systemd-boot's counter rename to the peer, with the peer's PARTUUIDs", async () => {
    const one = await fakeRelease("1.0.0");
    const two = await fakeRelease("2.0.0");
    const disk1 = await installedDisk(1, one);
    const disk2 = await installedDisk(2, one);
    expect(await keepInStep(peerOf(disk2), disk1, "a", say)).toBe("done");
    expect(said).toEqual([]);

    await stage(disk1, "b", two);
    expect(await keepInStep(peerOf(disk2), disk1, "a", say)).toBe("done");
    expect(await slotBytes(disk2, "b")).toEqual(await slotBytes(disk1, "b"));
    const staged = await entries(disk2);
    expect(Object.keys(staged)).toEqual(["liken-a-1.0.0.conf", "liken-b-2.0.0+1-0.conf"]);
    expect(staged["liken-b-2.0.0+1-0.conf"]).toContain(`root=PARTUUID=${disk2.slots.b.partUuid}`);
    expect(Object.values(staged).join("")).not.toContain(disk1.slots.b.partUuid);
    expect([await generation(disk1), await generation(disk2)]).toEqual(["1\n", "1\n"]);

    // systemd-boot counts the trial down on the ESP it booted from only.
    const dir = join(disk1.esp, "loader/entries");
    await rename(join(dir, "liken-b-2.0.0+1-0.conf"), join(dir, "liken-b-2.0.0+0-1.conf"));
    expect(await keepInStep(peerOf(disk2), disk1, "a", say)).toBe("done");
    expect(Object.keys(await entries(disk2))).toEqual([
      "liken-a-1.0.0.conf",
      "liken-b-2.0.0+0-1.conf",
    ]);
    expect([await generation(disk1), await generation(disk2)]).toEqual(["2\n", "2\n"]);
    expect(failures).toEqual([]);
    expect(said).toEqual([
      `mirror: copying slot b (release 2.0.0) to ${disk2.slots.b.device}`,
      "mirror: member 2 is in step with member 1 (generation 1)",
      "mirror: member 2 is in step with member 1 (generation 2)",
    ]);
  });

  it("marks a peer that refuses a write failed, and moves the booted disk's generation on", async () => {
    const one = await fakeRelease("1.0.0");
    const disk1 = await installedDisk(1, one);
    const disk2 = await installedDisk(2, one);
    await stage(disk1, "b", await fakeRelease("2.0.0"));
    // The peer's slot b is a folder: it cannot be opened for writing.
    await rm(disk2.slots.b.device);
    await mkdir(disk2.slots.b.device);
    expect(await keepInStep(peerOf(disk2), disk1, "a", say)).toBe("done");
    expect(failures).toEqual([expect.stringMatching(/^write: EISDIR/)]);
    expect([await generation(disk1), await generation(disk2)]).toEqual(["1\n", null]);
    // What the peer was given before the failure never boots a half-written slot.
    expect(Object.keys(await entries(disk2))).toEqual(["liken-a-1.0.0.conf"]);
  });

  it("brings the booted disk up to a peer that ran while it was gone, and asks for a reboot", async () => {
    const one = await fakeRelease("1.0.0");
    const two = await fakeRelease("2.0.0");
    const disk1 = await installedDisk(1, one);
    const disk2 = await installedDisk(2, one);
    // Member 2 ran alone: it staged 2.0.0, whose trial passed.
    await stage(disk2, "b", two);
    await writeFile(join(disk2.state, "status/status.json"), '{"version":"2.0.0"}\n');
    await writeMirrorGeneration(disk2.esp, 3);
    expect(await keepInStep(peerOf(disk2), disk1, "a", say)).toBe("reboot");
    expect(said).toEqual([
      "mirror: member 1 was behind member 2 (generation 0 < 3): brought up to date, rebooting",
      `mirror: copying slot b (release 2.0.0) to ${disk1.slots.b.device}`,
    ]);
    expect(await slotBytes(disk1, "b")).toEqual(await slotBytes(disk2, "b"));
    expect((await entries(disk1))["liken-b-2.0.0+1-0.conf"]).toContain(
      `root=PARTUUID=${disk1.slots.b.partUuid}`,
    );
    expect(await readFile(join(disk1.state, "status/status.json"), "utf8")).toBe(
      '{"version":"2.0.0"}\n',
    );
    expect(await generation(disk1)).toBe("3\n");
  });
});
