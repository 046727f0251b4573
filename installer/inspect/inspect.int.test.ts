// `inspect` as an operator runs it, on a disk that the real installer wrote: sparse image
// files, real sfdisk, mtools and debugfs, no mocks.
import { type FileHandle, mkdtemp, open, rm, truncate, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { PARTITION_TYPES } from "../../formats/gpt-types.ts";
import { JOURNAL_HEADER_SIZE, journalHeader } from "../../formats/journal-header.ts";
import type { CrashRecord } from "../../formats/journal-records.ts";
import { encodeRecord, RECORD_ALIGN } from "../../formats/journal-records.ts";
import { cli } from "../../test/cli.ts";
import { makeTestRelease } from "../../test/release-fixture.ts";
import { run } from "../../tools/exec.ts";
import type { Inspection } from "./types.ts";

const MANIFEST = "examples/cluster.toml";
const MIB = 1024 * 1024;
const GIB = 1024 * MIB;

let dir: string;
let release: string;
let disk: string;
let counter = 0;

async function sparse(size: number): Promise<string> {
  const file = join(dir, `disk-${++counter}.img`);
  await writeFile(file, "");
  await truncate(file, size);
  return file;
}

async function installOnto(file: string, env?: Record<string, string>, manifest = MANIFEST) {
  return cli(
    [
      "install",
      "--manifest",
      manifest,
      "--as",
      "leader-1",
      "--release",
      release,
      "--status-file",
      join(dir, `status-${counter}.json`),
      file,
    ],
    env ? { env } : {},
  );
}

async function inspectJson(file: string): Promise<Inspection> {
  const r = await cli(["inspect", "--json", file]);
  expect(r.stderr).toBe("");
  expect(r.code).toBe(0);
  return JSON.parse(r.stdout) as Inspection;
}

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "liken-inspect-test-"));
  release = await makeTestRelease(join(dir, "release-1.0.0"), { version: "1.0.0" });
  disk = await sparse(32 * GIB);
  const r = await installOnto(disk);
  expect(r.code, r.stderr).toBe(0);
}, 120_000);

afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe("inspect --json on a complete install", () => {
  it("reads the claim", async () => {
    const i = await inspectJson(disk);
    expect(i.claim).toMatchObject({
      cluster: "mycluster",
      machine: "leader-1",
      release: "1.0.0",
      use: "system",
      complete: true,
      copies: 2,
    });
    expect(i.claim.installId).toMatch(
      /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/,
    );
    expect(Date.parse(i.claim.createdAt)).not.toBeNaN();
    expect(i.path).toBe(disk);
    expect(i.size).toBe(32 * GIB);
  });

  it("reads the partitions as the manifest's layout, and as sfdisk reads them", async () => {
    const i = await inspectJson(disk);
    expect(i.partitions.map((p) => [p.label, p.start / MIB, p.size / MIB, p.typeGuid])).toEqual([
      ["liken-esp", 1, 512, PARTITION_TYPES.esp],
      ["liken-a", 513, 2048, PARTITION_TYPES.slot],
      ["liken-b", 2561, 2048, PARTITION_TYPES.slot],
      ["liken-journal", 4609, 64, PARTITION_TYPES.journal],
      ["liken-state", 4673, 1024, PARTITION_TYPES.state],
      ["liken-containerd", 5697, 20480, PARTITION_TYPES.storage],
      // The rest, up to the last MiB (the claim's tail copy and the backup GPT).
      ["liken-local-volumes", 26177, 6590, PARTITION_TYPES.storage],
    ]);
    const table = JSON.parse((await run("sfdisk", ["--json", disk])).stdout).partitiontable;
    expect(
      i.partitions.map((p) => ({
        name: p.label,
        start: p.start / 512,
        size: p.size / 512,
        type: p.typeGuid,
        uuid: p.partUuid,
      })),
    ).toEqual(
      table.partitions.map((p: Record<string, unknown>) => ({
        name: p.name,
        start: p.start,
        size: p.size,
        type: p.type,
        uuid: p.uuid,
      })),
    );
  });

  it("reads the slots, the boot entry and loader.conf from the ESP", async () => {
    const i = await inspectJson(disk);
    expect(i.slots).toEqual({
      a: { version: "1.0.0", hashMatches: true },
      b: { version: null, hashMatches: null },
    });
    expect(i.entries).toEqual([
      {
        fileName: "liken-a-1.0.0.conf",
        slot: "a",
        version: "1.0.0",
        triesLeft: null,
        triesDone: null,
      },
    ]);
    expect(i.loaderConf).toBe("timeout 0\neditor no\nconsole-mode keep\n");
  });

  it("reads the state partition and the crash journal", async () => {
    const i = await inspectJson(disk);
    expect(i.installer).toMatchObject({
      kind: "InstallerStatus",
      phase: "Installed",
      reason: "",
      cluster: "mycluster",
      machine: "leader-1",
      version: "1.0.0",
      installId: i.claim.installId,
    });
    expect(i.identity).toMatchObject({
      cluster: "mycluster",
      machine: "leader-1",
      role: "leader",
      installId: i.claim.installId,
    });
    expect(i.spec).toEqual({ version: "1.0.0" });
    expect(i.status).toBeNull();
    expect(i.journal).toEqual({
      valid: true,
      installId: i.claim.installId,
      records: 0,
      skipped: 0,
    });
    expect(i.crashes).toEqual([]);
    expect(i.problems).toEqual([]);
  });

  it("says which slot no longer hashes as its release after one byte changes", async () => {
    const before = await inspectJson(disk);
    const slotA = before.partitions.find((p) => p.label === "liken-a")!;
    const at = slotA.start + 200 * 1024; // inside the 260 KiB root filesystem image
    const file = await open(disk, "r+");
    try {
      const old = Buffer.alloc(1);
      await file.read(old, 0, 1, at);
      await file.write(Buffer.from([(old[0] ?? 0) ^ 0xff]), 0, 1, at);
      try {
        const after = await inspectJson(disk);
        expect(after.slots.a).toEqual({ version: "1.0.0", hashMatches: false });
        const human = await cli(["inspect", disk]);
        expect(human.stdout).toMatch(/^ {2}a {5}1\.0\.0 {4}hash MISMATCH$/m);
      } finally {
        await file.write(old, 0, 1, at);
      }
    } finally {
      await file.close();
    }
    expect((await inspectJson(disk)).slots.a.hashMatches).toBe(true);
  });
});

describe("inspect for people", () => {
  it("prints the claim, the partitions, slots, entries, spec, statuses and crashes", async () => {
    const r = await cli(["inspect", disk]);
    expect(r.code).toBe(0);
    expect(r.stderr).toBe("");
    const lines = r.stdout.split("\n");
    expect(lines[0]).toBe(
      `${disk}  32 GiB  liken system disk of mycluster/leader-1, release 1.0.0, install complete`,
    );
    expect(lines[1]).toMatch(/^ {2}install [0-9a-f-]{36} started \S+, 2 of 2 claim copies valid$/);
    expect(r.stdout).toContain("\nPartitions\n  #  LABEL                START     SIZE     TYPE ");
    expect(r.stdout).toMatch(/^ {2}2 {2}liken-a {14}513 MiB {3}2 GiB {4}slot {5}[0-9A-F-]{36}$/m);
    expect(r.stdout).toContain(
      "\nSlots\n  SLOT  VERSION  ROOTFS\n  a     1.0.0    hash ok\n  b     -        empty\n",
    );
    expect(r.stdout).toContain(
      "\nBoot entries\n  FILE                SLOT  VERSION  TRIES\n  liken-a-1.0.0.conf  a     1.0.0    proven\n",
    );
    expect(r.stdout).toContain(
      `\nSpec: version 1.0.0\nInstaller: Installed: installed on ${disk}\nMachine: not booted yet\nCrashes: 0 recorded\n`,
    );
    expect(r.stdout).not.toContain("Problems");
  });
});

// Writes into the disk's crash journal partition as the boot agent would, runs `check`, and
// puts the partition's first bytes back, so the other tests see a journal with no records.
async function withJournal(
  write: (file: FileHandle, start: number, size: number) => Promise<void>,
  check: () => Promise<void>,
): Promise<void> {
  const before = await inspectJson(disk);
  const journal = before.partitions.find((p) => p.label === "liken-journal");
  if (!journal) throw new Error("no liken-journal partition");
  const saved = Buffer.alloc(JOURNAL_HEADER_SIZE + 64 * 1024);
  const file = await open(disk, "r+");
  try {
    await file.read(saved, 0, saved.length, journal.start);
    try {
      await write(file, journal.start, journal.size);
      await check();
    } finally {
      await file.write(saved, 0, saved.length, journal.start);
    }
  } finally {
    await file.close();
  }
  expect((await inspectJson(disk)).journal?.records).toBe(0);
}

function crash(n: number, over: Partial<CrashRecord> = {}): CrashRecord {
  return {
    id: `5eed00000000000${n}`,
    time: `2026-12-01T0${n}:51:02Z`,
    bootId: "0f4c8f3e-9a51-4a8e-b2a4-6f0d1c2e3b4a",
    release: "1.0.0",
    slot: "a",
    kind: "Panic",
    lines: [
      "[   31.101234] sysrq: Trigger a crash",
      "[   31.101500] Kernel panic - not syncing: sysrq triggered crash",
      "[   31.101700] CPU: 0 PID: 412 Comm: sh Not tainted 6.1.0-27-amd64 #1  Debian 6.1.115-1",
      "[   31.101900] Hardware name: QEMU Standard PC (Q35 + ICH9, 2009), BIOS 0.0.0 02/06/2015",
      "[   31.102100] Call Trace:",
    ],
    ...over,
  };
}

describe("inspect reads the crash journal", () => {
  it("lists the intact records newest first, and counts a torn one", async () => {
    const older = crash(3, {
      release: "2.0.0",
      slot: "b",
      lines: ["[  842.311900] Kernel panic - not syncing: Fatal exception in interrupt"],
    });
    const newer = crash(4);
    await withJournal(
      async (file, start) => {
        const records = start + JOURNAL_HEADER_SIZE;
        const first = encodeRecord(1, older);
        await file.write(first, 0, first.length, records);
        // Record 2 was torn by a power loss: its first sector only, cut inside the payload.
        const torn = encodeRecord(2, crash(9)).subarray(0, 200);
        await file.write(torn, 0, torn.length, records + first.length);
        const third = encodeRecord(3, newer);
        await file.write(third, 0, third.length, records + first.length + RECORD_ALIGN);
      },
      async () => {
        const i = await inspectJson(disk);
        expect(i.journal).toEqual({
          valid: true,
          installId: i.claim.installId,
          records: 2,
          skipped: 1,
        });
        expect(i.crashes).toEqual([newer, older]);
        expect(i.problems).toEqual([]);
        const human = await cli(["inspect", disk]);
        expect(human.code).toBe(0);
        expect(human.stdout).toContain(
          "\nCrashes: 2 recorded (1 torn or damaged record skipped)\n  newest 2026-12-01T04:51:02Z, release 1.0.0 slot a: Kernel panic - not syncing: sysrq triggered crash\n",
        );
      },
    );
  }, 120_000);

  it("reads no records from a journal whose header names another install", async () => {
    const other = "1c0ffee0-1234-4abc-8def-0123456789ab";
    await withJournal(
      async (file, start, size) => {
        await file.write(journalHeader(other, size), 0, JOURNAL_HEADER_SIZE, start);
        const record = encodeRecord(1, crash(4));
        await file.write(record, 0, record.length, start + JOURNAL_HEADER_SIZE);
      },
      async () => {
        const i = await inspectJson(disk);
        expect(i.journal).toEqual({ valid: true, installId: other, records: 0, skipped: 0 });
        expect(i.crashes).toEqual([]);
        expect(i.problems).toEqual(["journal:other-install"]);
        const human = await cli(["inspect", disk]);
        expect(human.stdout).toContain("\nCrashes: the crash journal belongs to another install\n");
        expect(human.stdout).toContain("\nProblems: journal:other-install (docs/inspect.md");
      },
    );
  }, 120_000);
});

describe("inspect shows the machine's declared network", () => {
  let racked: string;
  const declared = [
    "Network (declared): nameservers 10.0.40.2 fd00:40::2",
    "  bond0     bond 802.3ad of eno1, eno2, mtu 9000",
    "  bond0.40  vlan 40 on bond0, 10.0.40.11/24 fd00:40::11/64, route 0.0.0.0/0 via 10.0.40.1, route ::/0 via fd00:40::1",
  ];

  beforeAll(async () => {
    racked = await sparse(32 * GIB);
    const r = await installOnto(racked, undefined, "examples/rack-static.toml");
    expect(r.code, r.stderr).toBe(0);
  }, 120_000);

  it("as the manifest declares it, before the first boot", async () => {
    const i = await inspectJson(racked);
    expect(i.network).toEqual({
      declared: {
        interfaces: [
          {
            name: "bond0",
            bond: { ports: ["eno1", "eno2"], mode: "802.3ad" },
            mtu: 9000,
            addresses: [],
            routes: [],
            dhcp: false,
          },
          {
            name: "bond0.40",
            vlan: { link: "bond0", id: 40 },
            addresses: ["10.0.40.11/24", "fd00:40::11/64"],
            routes: [
              { to: "0.0.0.0/0", via: "10.0.40.1" },
              { to: "::/0", via: "fd00:40::1" },
            ],
            dhcp: false,
          },
        ],
        nameservers: ["10.0.40.2", "fd00:40::2"],
      },
      declaredErrors: [],
      lastBoot: null,
    });
    expect(i.identity?.network).toEqual(i.network.declared);
    const human = await cli(["inspect", racked]);
    expect(human.code).toBe(0);
    expect(human.stdout).toContain(
      `\nMachine: not booted yet\n${[...declared, "Network (last boot): not booted yet"].join("\n")}\nCrashes: 0 recorded\n`,
    );
  });

  it("and as the last boot held it, from the status document the boot agent wrote", async () => {
    const state = (await inspectJson(racked)).partitions.find((p) => p.label === "liken-state")!;
    const network = {
      interfaces: [
        {
          name: "bond0",
          kind: "bond",
          state: "up",
          mtu: 9000,
          addresses: [],
          dhcp: false,
          bond: {
            mode: "802.3ad",
            members: [
              { name: "eno1", carrier: true, active: true },
              { name: "eno2", carrier: false, active: false },
            ],
          },
        },
        {
          name: "bond0.40",
          kind: "vlan",
          state: "up",
          mtu: 9000,
          addresses: ["10.0.40.11/24", "fd00:40::11/64"],
          dhcp: false,
        },
      ],
      nameservers: ["10.0.40.2", "fd00:40::2"],
    };
    const message =
      "bond0: eno2 has no carrier, traffic runs on eno1 alone; check eno2's cable and the switch port";
    const status = {
      apiVersion: "liken.dev/v1",
      kind: "MachineStatus",
      phase: "Running",
      version: "1.0.0",
      slot: "a",
      conditions: [
        {
          type: "NetworkReady",
          status: "False",
          reason: "BondDegraded",
          message,
          lastTransitionTime: "2026-12-01T04:41:07Z",
        },
      ],
      network,
      updatedAt: "2026-12-01T04:41:07Z",
      bootId: "0f4c8f3e-9a51-4a8e-b2a4-6f0d1c2e3b4a",
    };
    const file = join(dir, "status.json");
    await writeFile(file, JSON.stringify(status, null, 2));
    // As the boot agent writes it at the first boot, with one port of the bond unplugged.
    await run("debugfs", [
      "-w",
      "-R",
      `write ${file} status/status.json`,
      `${racked}?offset=${state.start}`,
    ]);
    const i = await inspectJson(racked);
    expect(i.network.lastBoot).toEqual(network);
    expect(i.status?.network).toEqual(network);
    const human = await cli(["inspect", racked]);
    expect(human.stdout).toContain(
      `\nMachine: Running, version 1.0.0 slot a, updated 2026-12-01T04:41:07Z\n${[
        ...declared,
        `Network (last boot): NetworkReady False BondDegraded: ${message}`,
        "  bond0     up, eno1 carries traffic, eno2 no carrier",
        "  bond0.40  up, 10.0.40.11/24 fd00:40::11/64",
      ].join("\n")}\nCrashes: 0 recorded\n`,
    );
  });
});

describe("inspect on disks that are not complete installs", () => {
  it("refuses a blank disk", async () => {
    const blank = await sparse(GIB);
    const r = await cli(["inspect", blank]);
    expect(r).toEqual({
      stdout: "",
      stderr: `liken-stick inspect: ${blank} is not a liken disk: no valid liken claim (liken-stick disks ${blank} says what it holds)\n`,
      code: 1,
    });
  });

  it("refuses a disk holding other data, with the reasons disks gives", async () => {
    const foreign = await sparse(GIB);
    await run("mkfs.ext4", ["-q", "-F", foreign]);
    const r = await cli(["inspect", "--json", foreign]);
    const what = `${foreign} is not a liken disk: signature:ext4@0x438, nonzero-data:head`;
    const hint = `liken-stick disks ${foreign} says what it holds`;
    expect(r.code).toBe(1);
    expect(r.stderr).toBe(`liken-stick inspect: ${what} (${hint})\n`);
    // Under --json the refusal is on stdout too, as on every verb.
    expect(JSON.parse(r.stdout)).toEqual({
      error: { kind: "refused", reason: "Refused", what, hint },
    });
  });

  it("reads a partial install: what is there, and nulls for what is not", async () => {
    const partial = await sparse(32 * GIB);
    // Killed as it begins slot A: claim, GPT and ESP written; slot, journal and state not.
    const killed = await installOnto(partial, { LIKEN_TEST_KILL_AT: "slot" });
    expect(killed.code).toBe("SIGKILL");
    const i = await inspectJson(partial);
    expect(i.claim).toMatchObject({ machine: "leader-1", complete: false, copies: 2 });
    expect(i.partitions).toHaveLength(7);
    expect(i.entries?.map((e) => e.fileName)).toEqual(["liken-a-1.0.0.conf"]);
    // The ESP names the release, but the slot does not hold it yet.
    expect(i.slots).toEqual({
      a: { version: "1.0.0", hashMatches: false },
      b: { version: null, hashMatches: null },
    });
    expect(i).toMatchObject({
      installer: null,
      identity: null,
      spec: null,
      status: null,
      journal: { valid: false, installId: null, records: 0, skipped: 0 },
      crashes: [],
      problems: ["state:unreadable", "journal:invalid"],
    });
    const human = await cli(["inspect", partial]);
    expect(human.code).toBe(0);
    expect(human.stdout).toContain("install PARTIAL (run the same install again)");
    expect(human.stdout).toContain(
      "\nSpec: not readable\nInstaller: no status document\nMachine: not booted yet\nCrashes: crash journal header not valid\n",
    );
    expect(human.stdout).toContain(
      "\nProblems: state:unreadable, journal:invalid (docs/inspect.md says what to do)\n",
    );
  });

  it("reads a partial install killed before the ESP: no entries, no slots", async () => {
    const partial = await sparse(32 * GIB);
    const killed = await installOnto(partial, { LIKEN_TEST_KILL_AT: "esp" });
    expect(killed.code).toBe("SIGKILL");
    const i = await inspectJson(partial);
    expect(i).toMatchObject({
      entries: null,
      loaderConf: null,
      slots: { a: { version: null, hashMatches: null }, b: { version: null, hashMatches: null } },
      problems: ["esp:unreadable", "state:unreadable", "journal:invalid"],
    });
    expect((await cli(["inspect", partial])).stdout).toContain("\nBoot entries\n  not readable\n");
  });
});
