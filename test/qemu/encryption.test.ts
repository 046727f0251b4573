// [encryption] tpm = true (issue 43) on a machine with a TPM 2.0 (swtpm on tpm-crb): the
// unattended stick installs worker-1 with its state partition and storage roles as LUKS2
// volumes and sends the one recovery key with its report, nowhere else; the machine boots
// with the key its TPM releases. The same disk in a machine with another TPM holds for the
// recovery key, which typed on the console opens it and seals a new key: the next boots,
// a trial that fails its health check and the return to 1.0.0, need none. (A machine
// without a TPM is refused before anything is written: installer/encryption.int.test.ts,
// on this host, which has none.)
import { copyFile, mkdtemp, open, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, beforeAll, expect, it } from "vitest";
import { parseMachineStatus } from "../../formats/machine-status.ts";
import { STATE_FILES } from "../../formats/state-partition.ts";
import { cachedRelease, cachedStick } from "../../testing/cached-build.ts";
import { decryptVolume, volumeKey } from "../../testing/luks-read.ts";
import { probeAt } from "../../tools/blkid.ts";
import { readExt4File } from "../../tools/debugfs.ts";
import { sparseFile } from "../disk-files.ts";
import { inspect, updateMedium } from "./boot-path.ts";
import { startVm, stopAllVms, type Vm } from "./harness.ts";
import { type ReportServer, startReportServer } from "./report-server.ts";

const MANIFEST = "test/fixtures/manifests/good/encryption.toml";
const REPORT_PORT = 18791;
const GIB = 1024 ** 3;
const UP = /^liken 1\.0\.0 slot a up$/;
const BOOT_MS = 300_000;
/** What blkid reads at each partition liken leaves unencrypted (slot B is empty). */
const PLAIN_TYPES: Record<string, string | undefined> = {
  "liken-esp": "vfat",
  "liken-a": "erofs",
  "liken-b": undefined,
  "liken-journal": undefined,
};
const RECOVERY_KEY = /^([cbdefghijklnrtuv]{8}-){7}[cbdefghijklnrtuv]{8}$/;

let dir: string;
let stick: string;
let v2bad: string;
let server: ReportServer<{ machine: string | null; recoveryKey?: string }>;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "liken-qemu-encryption-"));
  server = await startReportServer(REPORT_PORT);
  const release = await cachedRelease({ version: "1.0.0" });
  v2bad = await cachedRelease({ version: "2.0.0", fault: "health" });
  stick = await cachedStick({
    manifest: MANIFEST,
    releaseDir: release,
    append: ["liken.install=worker-1", "liken.then=reboot", `liken.report=${server.url}`],
  });
}, 600_000);
afterEach(stopAllVms);
afterAll(async () => {
  await server.close();
  await rm(dir, { recursive: true, force: true });
});

/** Ends a VM whose boot is complete (the agent unmounted the state). */
async function powerOff(vm: Vm): Promise<void> {
  await vm.qmp.execute("quit");
  await vm.waitForExit(30_000);
  await vm.stop();
}

/** The machine's status as the state partition holds it, read with the recovery key. */
async function stateStatus(disk: string, recoveryKey: string) {
  const state = (await inspect(disk)).partitions.find((p) => p.label === "liken-state")!;
  const key = await volumeKey(disk, state, recoveryKey);
  const plain = join(dir, "state.plain");
  await decryptVolume(disk, state, key, plain);
  const text = await readExt4File(plain, 0, `/${STATE_FILES.machineStatus}`);
  const identity = await readExt4File(plain, 0, `/${STATE_FILES.identity}`);
  const bytes = await readFile(plain);
  await rm(plain);
  return { status: text ? parseMachineStatus(text) : null, identity, key, bytes };
}

function holds(haystack: Buffer, needle: Buffer | string): boolean {
  return haystack.includes(typeof needle === "string" ? Buffer.from(needle) : needle);
}

/** `size` bytes at `start` of `file` (a disk image is larger than one Buffer). */
async function region(file: string, start: number, size: number): Promise<Buffer> {
  const handle = await open(file, "r");
  try {
    const bytes = Buffer.alloc(size);
    await handle.read(bytes, 0, size, start);
    return bytes;
  } finally {
    await handle.close();
  }
}

let disk: string;
let recoveryKey: string;

it("installs worker-1 encrypted, sends the recovery key with its report only, and boots with the key its TPM releases", async () => {
  disk = await sparseFile(join(dir, "worker-1.img"), 4 * GIB);
  const stickCopy = join(dir, "stick.img");
  await copyFile(stick, stickCopy);
  const vm = await startVm({
    stick: stickCopy,
    stickWritable: true,
    disks: [{ path: disk, bus: "virtio" }],
    nics: ["virtio"],
    tpmState: join(dir, "tpm-a"),
    relaunchOnReboot: true,
  });
  await vm.waitFor(/^liken-stick: installed as worker-1 on \/dev\/vda, install /, 600_000);
  await vm.waitFor(/^liken-stick: report sent to .* \(HTTP 204\)$/, 120_000);
  const report = server.reports.at(-1)!;
  expect(report.machine).toBe("worker-1");
  expect(report.recoveryKey).toMatch(RECOVERY_KEY);
  recoveryKey = report.recoveryKey!;
  expect(await vm.waitFor(/^liken: encrypted disks opened with /, BOOT_MS)).toBe(
    "liken: encrypted disks opened with the key the TPM released: state, data, scratch",
  );
  await vm.waitFor(UP, BOOT_MS);
  const consoleText = vm.console();
  await powerOff(vm);

  // The disk from outside: the state and both roles are LUKS2, the rest is as always.
  const seen = await inspect(disk);
  expect(seen.partitions.filter((p) => p.encrypted).map((p) => p.label)).toEqual([
    "liken-state",
    "liken-data",
    "liken-scratch",
  ]);
  for (const p of seen.partitions)
    expect((await probeAt(disk, p.start, p.size))?.type, p.label).toBe(
      p.encrypted ? "crypto_LUKS" : PLAIN_TYPES[p.label],
    );
  expect(seen.slots.a).toEqual({ version: "1.0.0", hashMatches: true });
  expect(seen.status).toBeNull();

  // Opened with the recovery key, the state holds what the machine wrote at its boot.
  const { status, identity, key, bytes } = await stateStatus(disk, recoveryKey);
  expect(identity).toContain('"machine": "worker-1"');
  expect(status?.conditions.find((c) => c.type === "DiskEncrypted")).toMatchObject({
    status: "True",
    reason: "OpenedByTpm",
  });
  expect(status?.encryption).toEqual({
    tpm: true,
    pcrs: [7],
    opened: ["state", "data", "scratch"],
    openedBy: "tpm",
  });

  // No key outside the LUKS headers and the TPM: not on the console, the stick, the disk's
  // plain partitions, or in the state's documents.
  const plain = await Promise.all(
    seen.partitions
      .filter((p) => !p.encrypted)
      .map(async (p) => ({ label: p.label, bytes: await region(disk, p.start, p.size) })),
  );
  const stickBytes = await readFile(stickCopy);
  for (const needle of [recoveryKey, key, key.toString("hex")]) {
    expect(consoleText.includes(needle.toString())).toBe(false);
    expect(holds(stickBytes, needle)).toBe(false);
    expect(holds(bytes, needle)).toBe(false);
    for (const p of plain) expect(holds(p.bytes, needle), p.label).toBe(false);
  }
  expect(JSON.stringify(status)).not.toContain(recoveryKey);
}, 1_500_000);

it("in a machine with another TPM, holds for the recovery key; typed, it opens, and the next boots need none", async () => {
  expect(recoveryKey).toMatch(RECOVERY_KEY);
  // A 2.0.0 that fails its health check waits on an update medium: once the disks are open
  // it is staged, its trial fails and the machine returns to 1.0.0, each boot opening the
  // disks with the key the TPM sealed after the recovery.
  const medium = await updateMedium(dir, "2.0.0", v2bad);
  const vm = await startVm({
    disks: [
      { path: disk, bus: "virtio" },
      { path: medium, bus: "virtio" },
    ],
    tpmState: join(dir, "tpm-b"),
    relaunchOnReboot: true,
  });
  await vm.waitFor(
    "liken: the TPM did not release the key of the encrypted disks: this machine's TPM did not seal it",
    BOOT_MS,
  );
  await vm.waitFor("recovery key: ", 60_000);
  await vm.type("not-a-key\n");
  await vm.waitFor("that is not a recovery key", 30_000);
  await vm.type(`${recoveryKey.toUpperCase().replaceAll("-", " ")}\n`);
  await vm.waitFor("a new key is sealed to PCR 7", 120_000);
  const opened = /^liken: encrypted disks opened with /;
  expect(await vm.waitFor(opened, BOOT_MS)).toBe(
    "liken: encrypted disks opened with the recovery key: state, data, scratch",
  );
  await vm.waitFor("liken: booting 2.0.0 from slot b as its one trial", BOOT_MS);
  const byTpm = "liken: encrypted disks opened with the key the TPM released: state, data, scratch";
  expect(await vm.waitFor(opened, BOOT_MS)).toBe(byTpm);
  await vm.waitFor("liken: trial of 2.0.0 failed: the release's own check failed", BOOT_MS);
  await vm.waitFor(/^liken: booting 1\.0\.0 from slot a$/, BOOT_MS);
  expect(await vm.waitFor(opened, BOOT_MS)).toBe(byTpm);
  await vm.waitFor("liken: release 2.0.0 was rejected (HealthCheckFailed)", BOOT_MS);
  await vm.waitFor(UP, BOOT_MS);
  // Nothing typed is shown.
  expect(vm.console()).not.toContain("not-a-key");
  expect(vm.console()).not.toContain(recoveryKey.slice(0, 8).toUpperCase());
  await powerOff(vm);
  const { status } = await stateStatus(disk, recoveryKey);
  expect(status?.conditions.find((c) => c.type === "DiskEncrypted")).toMatchObject({
    status: "True",
    reason: "OpenedByTpm",
  });
  expect(status?.conditions.find((c) => c.type === "RejectedLastBoot")).toMatchObject({
    status: "True",
    reason: "HealthCheckFailed",
  });
}, 1_500_000);
