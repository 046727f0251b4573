// The download's faults on one running machine, under OVMF and TCG (issue 45): each step
// hands the running 1.0.0 machine a spec by an update medium plugged in by QMP, from the
// release server of the test's namespace (release-site.ts), and reads what it did on the
// console and on the disk (`inspect` while it runs):
// 1. a release whose vmlinuz differs from its release.toml, then a spec whose release_sha256
//    is not the release.toml's: StagingRejected DigestMismatch each time, nothing staged;
// 2. 2.0.0 downloaded and staged (RebootPending), then a spec naming 2.0.1 from a server
//    that sends the headers and then nothing: 2.0.0's entry is withdrawn before anything is
//    fetched; the download stops after 60 s; retries come 10, 20 and 40 s after each
//    failure (503s in between, Downloading True with the reason and the next retry's time);
//    the third finds the server answering and 2.0.1 is staged;
// 3. while the machine waits to retry a server that answers 503, a spec naming another
//    URL: its download starts at once, long before the retry was due;
// 4. a system disk that refuses every write (QEMU's blkdebug under the running disk,
//    disk-faults.ts): 2.0.0's staged entry cannot be withdrawn, the console says so every
//    30 s, and 2.0.1 is not fetched; once the disk takes writes, it is.
// The waits are measured on the host from when the console printed each line.
import { copyFile, mkdir, mkdtemp, readdir, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { afterAll, beforeAll, expect, it } from "vitest";
import { cachedRelease } from "../../testing/cached-build.ts";
import {
  bootMachine,
  condition,
  type Inspected,
  inspect,
  installedDisk,
  updateMedium,
} from "./boot-path.ts";
import { failWrites, healWrites } from "./disk-faults.ts";
import type { Vm } from "./harness.ts";
import { plugMedium, pullMedium, type ReleaseSite, startReleaseSite } from "./release-site.ts";

const BOOT_MS = 180_000;
const MANIFEST = "test/fixtures/manifests/good/update-url.toml";
// How far a wait measured on the host may be from the manual's, under TCG on two cores.
const SLACK_MS = 6_000;

let dir: string;
let site: ReleaseSite;
const releases: Record<string, string> = {};

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "liken-qemu-update-faults-"));
  for (const version of ["1.0.0", "2.0.0", "2.0.1"])
    releases[version] = await cachedRelease({ version });
  site = await startReleaseSite(dir);
}, 900_000);

afterAll(async () => {
  await site?.stop();
  await rm(dir, { recursive: true, force: true });
});

/** A copy of `release` whose vmlinuz has one byte changed, release.toml left as it was. */
async function tampered(release: string): Promise<string> {
  const copy = join(dir, "tampered");
  await mkdir(copy, { recursive: true });
  for (const name of await readdir(release)) await copyFile(join(release, name), join(copy, name));
  const kernel = await readFile(join(copy, "vmlinuz"));
  kernel[kernel.length - 1] = (kernel[kernel.length - 1] ?? 0) ^ 0xff;
  await writeFile(join(copy, "vmlinuz"), kernel);
  return copy;
}

/** A medium whose spec names `version` at `url` with `digest`, never approving a trial. */
function medium(name: string, version: string, url: string, digest: string): Promise<string> {
  return updateMedium(dir, version, null, {
    name,
    approve: false,
    specExtra: `url = "${url}"\nrelease_sha256 = "${digest}"\n`,
  });
}

const MEDIUM_SEEN = /^liken: update medium \/dev\/vd\w+ \(LIKEN-UPDATE, ext4\)$/;

/** Plugs medium `image` in as `id` and waits until the watch mounted it. */
async function handOver(vm: Vm, id: string, image: string): Promise<void> {
  await plugMedium(vm, id, image);
  await vm.waitFor(MEDIUM_SEEN, 60_000);
}

async function takeBack(vm: Vm, id: string): Promise<void> {
  await pullMedium(vm, id);
  await vm.waitFor(/^liken: update medium \/dev\/vd\w+ is gone$/, 60_000);
}

/** The disk read back once its status shows condition `type` True with `reason` (the watch writes it just after its console line). */
async function statusShows(disk: string, type: string, reason: string): Promise<Inspected> {
  for (let tries = 1; ; tries++) {
    const read = await inspect(disk);
    const c = condition(read, type);
    if ((c?.status === "True" && c.reason === reason) || tries === 10)
      return expectShown(read, type, reason);
    await sleep(2_000);
  }
}

function expectShown(read: Inspected, type: string, reason: string): Inspected {
  expect(condition(read, type)).toMatchObject({ status: "True", reason });
  return read;
}

/** Waits for `pattern` and returns when the console showed it, on the host's clock. */
async function at(vm: Vm, pattern: string | RegExp, timeoutMs: number): Promise<number> {
  await vm.waitFor(pattern, timeoutMs);
  return Date.now();
}

it("refuses releases that do not match, withdraws before it fetches, retries on the manual's schedule, and starts a new target at once", async () => {
  const disk = await installedDisk(dir, releases["1.0.0"] as string, MANIFEST);
  const good = await site.serve("2.0.0", releases["2.0.0"] as string);
  const bad = await site.serve("2.0.0-tampered", await tampered(releases["2.0.0"] as string));
  const next = await site.serve("2.0.1", releases["2.0.1"] as string);
  const mirror = await site.serve("2.0.0-mirror", releases["2.0.0"] as string);
  const vm = await bootMachine(disk, { machine: "pc", nics: [site.nic] });
  try {
    await vm.waitFor(/^liken 1\.0\.0 slot a up$/, BOOT_MS);
    await vm.waitFor("liken: the agent watches for a new spec", BOOT_MS);

    // 1. A file that is not what release.toml says, then a release.toml that is not the spec's.
    await handOver(vm, "m1", await medium("m1", "2.0.0", bad.url, good.digest));
    expect(await vm.waitFor(/^liken: download of 2\.0\.0 stopped: /, BOOT_MS)).toMatch(
      /stopped: vmlinuz at \S+\/2\.0\.0-tampered\/vmlinuz has sha256 [0-9a-f]{64}, release\.toml says [0-9a-f]{64} /,
    );
    await takeBack(vm, "m1");
    await handOver(vm, "m2", await medium("m2", "2.0.0", good.url, "0".repeat(64)));
    expect(await vm.waitFor(/^liken: download of 2\.0\.0 stopped: /, 60_000)).toMatch(
      /stopped: release\.toml at \S+ has sha256 [0-9a-f]{64}, the spec's release_sha256 is 0{64} /,
    );
    const refused = await statusShows(disk, "StagingRejected", "DigestMismatch");
    expect(condition(refused, "StagingRejected")?.message).toContain("release_sha256");
    expect(refused.slots.b).toEqual({ version: null, hashMatches: null });
    await takeBack(vm, "m2");

    // 2. 2.0.0 staged; then 2.0.1 from a server that stalls, then answers 503, then serves.
    await handOver(vm, "m3", await medium("m3", "2.0.0", good.url, good.digest));
    await vm.waitFor("liken: staged 2.0.0 in slot b with one try", BOOT_MS);
    await vm.waitFor(/^liken: 2\.0\.0 is staged in slot b and boots once as a trial/, 60_000);
    await takeBack(vm, "m3");
    await site.answer("2.0.1", "stall");
    await handOver(vm, "m4", await medium("m4", "2.0.1", next.url, next.digest));
    await vm.waitFor(
      /^liken: withdrawing the staged entry \S+ before 2\.0\.1 is downloaded$/,
      60_000,
    );
    const starts = [await at(vm, `liken: downloading release 2.0.1 from ${next.url}`, 60_000)];
    const failures: number[] = [];
    failures.push(await at(vm, /^liken: download of 2\.0\.1 failed \(.*\); retry 1 at /, 120_000));
    await site.answer("2.0.1", "unavailable");
    for (const retry of [2, 3]) {
      starts.push(await at(vm, `liken: downloading release 2.0.1 from ${next.url}`, 60_000));
      failures.push(
        await at(
          vm,
          new RegExp(`^liken: download of 2\\.0\\.1 failed .*; retry ${retry} at `),
          60_000,
        ),
      );
    }
    // Waiting for retry 3: the status says so, the staged 2.0.0 is gone, and then the server answers.
    const waiting = await statusShows(disk, "Downloading", "WaitingToRetry");
    expect(condition(waiting, "Downloading")).toMatchObject({
      message: expect.stringMatching(
        /^release 2\.0\.1: .*; the last attempt failed: .+; retry 3 at \d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/,
      ),
    });
    expect(condition(waiting, "RebootPending")?.status).toBe("False");
    await site.answer("2.0.1", "serve");
    starts.push(await at(vm, `liken: downloading release 2.0.1 from ${next.url}`, 90_000));
    await vm.waitFor(
      "liken: downloaded release 2.0.1 and verified it against release_sha256",
      BOOT_MS,
    );
    await vm.waitFor("liken: staged 2.0.1 in slot b with one try", BOOT_MS);
    const [s1, s2, s3, s4] = starts as [number, number, number, number];
    const [f1, f2, f3] = failures as [number, number, number];
    const seconds = (ms: number) => (ms / 1000).toFixed(1);
    console.log(
      `measured on the host: no bytes for ${seconds(f1 - s1)} s; retries after ${seconds(s2 - f1)}, ${seconds(s3 - f2)}, ${seconds(s4 - f3)} s`,
    );
    expect(f1 - s1).toBeGreaterThanOrEqual(60_000 - SLACK_MS);
    expect(f1 - s1).toBeLessThanOrEqual(60_000 + SLACK_MS);
    for (const [waited, manual] of [
      [s2 - f1, 10_000],
      [s3 - f2, 20_000],
      [s4 - f3, 40_000],
    ] as const) {
      expect(waited).toBeGreaterThanOrEqual(manual - SLACK_MS);
      expect(waited).toBeLessThanOrEqual(manual + SLACK_MS);
    }
    await takeBack(vm, "m4");

    // 3. Waiting to retry 2.0.0 from a server that answers 503, a spec naming its mirror.
    await site.answer("2.0.0", "unavailable");
    await handOver(vm, "m5", await medium("m5", "2.0.0", good.url, good.digest));
    const failed = await at(vm, /^liken: download of 2\.0\.0 failed .*; retry 3 at /, 120_000);
    await takeBack(vm, "m5");
    await handOver(vm, "m6", await medium("m6", "2.0.0", mirror.url, good.digest));
    const started = await at(vm, `liken: downloading release 2.0.0 from ${mirror.url}`, 30_000);
    console.log(
      `measured on the host: the new target's download began ${seconds(started - failed)} s after the failure`,
    );
    // Long before retry 3 was due, 40 s after the failure.
    expect(started - failed).toBeLessThan(40_000 - SLACK_MS);
    await vm.waitFor("liken: staged 2.0.0 in slot b with one try", BOOT_MS);
    await takeBack(vm, "m6");

    // 4. The disk refuses writes: nothing of 2.0.1 is staged or fetched while it does.
    await failWrites(vm);
    const before = vm.console().length;
    await handOver(vm, "m7", await medium("m7", "2.0.1", next.url, next.digest));
    // Staging the new spec, or withdrawing 2.0.0's entry, whichever write the disk refuses first.
    const noWrite =
      /^liken: (the staged entry \S+ on the ESP could not be withdrawn|release 2\.0\.1 could not be staged): .+; check the system disk \(liken-stick inspect\), the machine tries again every 30 s$/;
    await vm.waitFor(noWrite, 60_000);
    await vm.waitFor(noWrite, 60_000); // tried again, 30 s later, and refused again
    expect(vm.console().slice(before)).not.toContain("liken: downloading release 2.0.1");
    // Taken back: the next try withdraws it, and 2.0.1 comes.
    await healWrites(vm);
    await vm.waitFor(`liken: downloading release 2.0.1 from ${next.url}`, 90_000);
    await vm.waitFor("liken: staged 2.0.1 in slot b with one try", BOOT_MS);
    await vm.waitFor(/^liken: 2\.0\.1 is staged in slot b and boots once as a trial/, 60_000);
    // Read while the machine runs, once the watch wrote its status: its writes are out then.
    const after = await statusShows(disk, "RebootPending", "StagedRelease");
    expect(after.slots.b).toEqual({ version: "2.0.1", hashMatches: true });
    expect(condition(after, "Downloading")).toMatchObject({ status: "False", reason: "Done" });
    expect(condition(after, "StagingFailed")).toMatchObject({ status: "False" });
  } finally {
    await vm.stop();
  }
}, 1_200_000);
