// The agent's watch against folders and a release server on 127.0.0.1: a spec naming a
// release by url is downloaded and staged, and the status says so; another release staged
// is withdrawn before a byte is fetched; a digest that does not match is refused and not
// retried. The staging's decision is the boot's own (stageSpec); only the slot's writing is
// stood in for, by a check that the downloaded folder is the release.
import { mkdir, mkdtemp, readdir, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { MachineStatus } from "../../formats/machine-status.ts";
import { requireRelease } from "../../formats/release.ts";
import {
  type ReleaseServer,
  startReleaseServer,
  writeFakeRelease,
} from "../../test/release-server.ts";
import { stagedEntry } from "../boot-plan.ts";
import { readSpec, type SpecFile } from "../spec.ts";
import { type Staged, stageSpec } from "../staging-step.ts";
import { machineStatus } from "../status.ts";
import { EMPTY_RECORD } from "../types.ts";
import { watch } from "./watch.ts";

let work: string;
let served: string;
let digest: string;
let server: ReleaseServer;

beforeEach(async () => {
  work = await mkdtemp(join(tmpdir(), "liken-watch-"));
  served = join(work, "served");
  digest = await writeFakeRelease(served, 256 * 1024);
  server = await startReleaseServer(served);
  await mkdir(join(work, "esp/loader/entries"), { recursive: true });
  await mkdir(join(work, "state"), { recursive: true });
});

afterEach(async () => {
  await server.close();
  await rm(work, { recursive: true, force: true });
});

const ok = { status: "True" as const, reason: "Ready", message: "" };
const bootStatus: MachineStatus = machineStatus({
  now: "2026-12-05T10:00:00Z",
  bootId: "boot-1",
  slot: "a",
  version: "1.0.0",
  trial: false,
  phase: "Running",
  rejection: null,
  lastCrash: null,
  previous: null,
  root: { partUuid: "", verity: false },
  watchdog: null,
  secureBoot: null,
  network: { modules: [], modulesApplied: ok, portsReady: ok, applied: null, networkReady: ok },
});

/** Runs the watch until `until` holds of what it wrote (or 15 s pass), then stops it. */
async function runWatch(
  until: (status: MachineStatus, lines: string[]) => boolean,
  writing: <T>(write: () => Promise<T>) => Promise<T> = (write) => write(),
) {
  const lines: string[] = [];
  const written: MachineStatus[] = [];
  const staged: string[] = [];
  const stop = new AbortController();
  const esp = join(work, "esp");
  const partition = { device: "/dev/null", disk: "vda", label: "", partUuid: "", size: 1 << 30 };
  const running = watch({
    running: { slot: "a", version: "1.0.0" },
    esp,
    partUuids: { a: "pa", b: "pb" },
    rebootPolicy: "Manual",
    readSpec: () => readSpec(join(work, "state/spec.toml")),
    stage: async (spec: SpecFile, releaseDir: string | null): Promise<Staged> => {
      if (releaseDir === null)
        return stageSpec({
          slot: "a",
          version: "1.0.0",
          record: EMPTY_RECORD,
          esp,
          partUuids: { a: "pa", b: "pb" },
          slots: { a: partition, b: partition },
          storage: [],
          disks: [],
          ports: [],
          spec,
          releaseDir,
        });
      const release = await requireRelease(releaseDir);
      staged.push(release.version);
      // As stage-release.ts ends: the counted entry, which the watch reads as RebootPending.
      const entry = stagedEntry("b", release.version).fileName;
      await writeFile(join(esp, "loader/entries", entry), `title liken ${release.version}\n`);
      return { status: {}, reboot: { slot: "b", version: release.version }, rebootNow: false };
    },
    downloadDir: join(work, "download"),
    stallMs: 5_000,
    pollMs: 50,
    readStatus: async () => bootStatus,
    writeStatus: async (status) => {
      written.push(status);
    },
    reboot: async () => {
      throw new Error("a Manual machine does not reboot");
    },
    writing,
    say: (line) => lines.push(line),
    signal: stop.signal,
  });
  const deadline = Date.now() + 15_000;
  while (Date.now() < deadline) {
    const last = written.at(-1);
    if (last && until(last, lines)) break;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  stop.abort();
  await running;
  return { lines, written, staged, last: written.at(-1) };
}

function condition(status: MachineStatus | undefined, type: string) {
  return status?.conditions.find((c) => c.type === type);
}

async function writeSpec(sha = digest) {
  await writeFile(
    join(work, "state/spec.toml"),
    `version = "2.0.0"\nurl = "${server.url}"\nrelease_sha256 = "${sha}"\n`,
  );
}

describe("watch", () => {
  it("downloads a release named by url, stages it, and reports RebootPending", async () => {
    await writeSpec();
    const run = await runWatch((s) => condition(s, "RebootPending")?.status === "True");
    expect(run.staged).toEqual(["2.0.0"]);
    expect(condition(run.last, "RebootPending")).toMatchObject({
      status: "True",
      reason: "StagedRelease",
    });
    expect(condition(run.last, "Downloading")).toMatchObject({ status: "False", reason: "Done" });
    expect(condition(run.last, "StagingFailed")).toMatchObject({ status: "False" });
    // The boot's conditions stay, with their times.
    expect(condition(run.last, "Ready")).toEqual(condition(bootStatus, "Ready"));
    // Downloading was True while the release was fetched.
    expect(run.written.some((s) => condition(s, "Downloading")?.status === "True")).toBe(true);
    expect(run.lines).toContain(`downloading release 2.0.0 from ${server.url}`);
    expect(run.lines.some((l) => l.includes("is staged in slot b"))).toBe(true);
  });

  it("withdraws another staged release before it downloads", async () => {
    const entry = stagedEntry("b", "1.5.0");
    const path = join(work, "esp/loader/entries", entry.fileName);
    await writeFile(path, "title liken 1.5.0\n");
    await writeSpec();
    const run = await runWatch((s) => condition(s, "RebootPending")?.status === "True");
    expect(await readdir(join(work, "esp/loader/entries"))).toEqual([
      stagedEntry("b", "2.0.0").fileName,
    ]);
    const withdrew = run.lines.findIndex((l) => l.startsWith("withdrawing the staged entry"));
    const downloading = run.lines.findIndex((l) => l.startsWith("downloading release 2.0.0"));
    expect(withdrew).toBeGreaterThanOrEqual(0);
    expect(withdrew).toBeLessThan(downloading);
    expect(run.staged).toEqual(["2.0.0"]);
  });

  it("downloads nothing while the staged entry cannot be withdrawn: StagingFailed", async () => {
    // A directory under the entry's name: no unlink removes it, even as root.
    const entry = stagedEntry("b", "1.5.0");
    await mkdir(join(work, "esp/loader/entries", entry.fileName));
    await writeSpec();
    const run = await runWatch((s) => condition(s, "StagingFailed")?.status === "True");
    const failed = condition(run.last, "StagingFailed");
    expect(failed?.message).toContain(
      `the staged entry ${entry.fileName} on the ESP could not be withdrawn`,
    );
    expect(failed?.message).toContain("liken-stick inspect");
    expect(failed?.reason).toBe("WithdrawFailed");
    expect(server.requests).toEqual([]);
    expect(condition(run.last, "Downloading")).toMatchObject({ status: "False" });
  });

  it("downloads nothing from a disk that will not go read-write, and still writes /run's status", async () => {
    const entry = stagedEntry("b", "1.5.0");
    await writeFile(join(work, "esp/loader/entries", entry.fileName), "title liken 1.5.0\n");
    await writeSpec();
    const refused = async () => {
      throw new Error(
        "mount: /run/liken/esp: cannot remount /dev/vda1 read-write, is write-protected",
      );
    };
    const run = await runWatch((s) => condition(s, "StagingFailed")?.status === "True", refused);
    // Staging goes first, as for every new spec, and cannot take the disk read-write.
    expect(condition(run.last, "StagingFailed")).toMatchObject({
      reason: "WriteFailed",
      message: expect.stringMatching(
        /^release 2\.0\.0 could not be staged: .*is write-protected; .* tries again every 30 s$/,
      ),
    });
    expect(server.requests).toEqual([]);
    expect(await readdir(join(work, "esp/loader/entries"))).toEqual([entry.fileName]);
  });

  it("refuses a release.toml the digest does not vouch for, and does not retry it", async () => {
    await writeSpec("0".repeat(64));
    const run = await runWatch((s) => condition(s, "StagingRejected")?.status === "True");
    expect(condition(run.last, "StagingRejected")).toMatchObject({ reason: "DigestMismatch" });
    expect(condition(run.last, "StagingRejected")?.message).toContain("release.toml");
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(server.requests.filter((r) => r.path.endsWith("release.toml"))).toHaveLength(1);
    expect(run.staged).toEqual([]);
    expect(run.lines.some((l) => l.includes("no retry until the spec"))).toBe(true);
  });

  it("retries a failed download after the schedule's wait, one console line per retry", async () => {
    server.misbehave("rootfs.img", "dropHalf", 1);
    await writeSpec();
    const run = await runWatch((s) => condition(s, "Downloading")?.reason === "WaitingToRetry");
    expect(condition(run.last, "Downloading")?.message).toMatch(
      /retry 1 at \d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ/,
    );
    expect(run.lines.filter((l) => l.startsWith("download of 2.0.0 failed"))).toHaveLength(1);
  });
});
