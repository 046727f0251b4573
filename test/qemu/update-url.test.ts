// An update named by url, end to end under OVMF and TCG (issue 45): a running 1.0.0 machine
// with a static address on its port is handed a spec naming 2.0.0 by url (on an update
// medium plugged in by QMP while it runs); the agent's watch downloads the release from a
// server in a network namespace of the test's own, stages it into slot B and reports
// RebootPending (reboot_policy Manual); after a reset 2.0.0 boots once as a trial.
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { cachedRelease } from "../../testing/cached-build.ts";
import { bootMachine, condition, inspect, installedDisk, updateMedium } from "./boot-path.ts";
import { plugMedium, type ReleaseSite, startReleaseSite } from "./release-site.ts";

const BOOT_MS = 180_000;
const MANIFEST = "test/fixtures/manifests/good/update-url.toml";

let dir: string;
let site: ReleaseSite | undefined;
const releases: Record<string, string> = {};

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "liken-qemu-update-url-"));
  for (const version of ["1.0.0", "2.0.0"]) releases[version] = await cachedRelease({ version });
  site = await startReleaseSite(dir);
}, 600_000);

afterAll(async () => {
  await site?.stop();
  await rm(dir, { recursive: true, force: true });
});

describe("an update named by url", () => {
  it("is downloaded and staged by the running machine's agent: RebootPending (Manual), then 2.0.0's trial after a reset", async () => {
    const disk = await installedDisk(dir, releases["1.0.0"] as string, MANIFEST);
    const { url, digest } = await (site as ReleaseSite).serve("2.0.0", releases["2.0.0"] as string);
    const medium = await updateMedium(dir, "2.0.0", null, {
      approve: false,
      specExtra: `url = "${url}"\nrelease_sha256 = "${digest}"\n`,
    });
    // i440fx: its root bus takes a PCI device plugged in while the machine runs.
    const vm = await bootMachine(disk, { machine: "pc", nics: [(site as ReleaseSite).nic] });
    await vm.waitFor(/^liken 1\.0\.0 slot a up$/, BOOT_MS);
    await vm.waitFor("liken: the agent watches for a new spec", BOOT_MS);
    // The medium is plugged in while the machine runs.
    await plugMedium(vm, "medium", medium);
    await vm.waitFor(/^liken: update medium \/dev\/vd\w+ \(LIKEN-UPDATE, ext4\)$/, 60_000);
    await vm.waitFor(`liken: downloading release 2.0.0 from ${url}`, 60_000);
    await vm.waitFor(
      "liken: downloaded release 2.0.0 and verified it against release_sha256",
      BOOT_MS,
    );
    await vm.waitFor("liken: staging 2.0.0 into slot b", 60_000);
    await vm.waitFor("liken: staged 2.0.0 in slot b with one try", BOOT_MS);
    await vm.waitFor(
      "liken: 2.0.0 is staged in slot b and boots once as a trial at the next reboot (reboot_policy Manual)",
      60_000,
    );
    // The watch writes the status and leaves the state partition written out (read-only
    // between writes): the disk reads back while the machine runs.
    const pending = await inspect(disk);
    expect(condition(pending, "RebootPending")).toMatchObject({
      status: "True",
      reason: "StagedRelease",
    });
    expect(condition(pending, "Downloading")).toMatchObject({ status: "False", reason: "Done" });
    expect(condition(pending, "StagingFailed")?.status).toBe("False");
    expect(condition(pending, "StagingRejected")?.status).toBe("False");
    expect(pending.status).toMatchObject({ phase: "Running", version: "1.0.0", slot: "a" });
    expect(vm.boots).toBe(1);

    await vm.reset();
    await vm.waitFor("liken: booting 2.0.0 from slot b as its one trial", BOOT_MS);
    await vm.waitFor("liken: trial passed: 2.0.0 in slot b is the proven release", BOOT_MS);
    await vm.waitFor(/^liken 2\.0\.0 slot b up$/, BOOT_MS);
    await vm.stop();
    const after = await inspect(disk);
    expect(after.status.boot).toMatchObject({ slot: "b", version: "2.0.0", trial: true });
    expect(after.slots.b).toEqual({ version: "2.0.0", hashMatches: true });
  }, 600_000);
});
