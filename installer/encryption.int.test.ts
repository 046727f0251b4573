// [encryption] on a machine without a TPM: this host has none (no /sys/class/tpm/tpm0), so
// `plan`, `install` and the unattended install refuse NoTpm, say what to do, and write
// nothing. The encrypted install itself needs the machine's TPM and dm-crypt: it is proven
// in QEMU (test/qemu/encryption.test.ts).
import { existsSync } from "node:fs";
import { mkdir, mkdtemp, rm, truncate, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, expect, it } from "vitest";
import { cli } from "../test/cli.ts";
import { contentDigest } from "../test/disk-files.ts";
import { makeTestRelease } from "../test/release-fixture.ts";

const MANIFEST = "test/fixtures/manifests/good/encryption.toml";
const NO_TPM =
  "the manifest encrypts the disks with the TPM ([encryption] tpm = true), and this machine has no TPM, not a TPM 2.0 (turn the TPM 2.0 on in the firmware's setup (Intel PTT, AMD fTPM, or a TPM module), or remove [encryption] from the manifest)";
let dir: string;
let release: string;
let disk: string;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "liken-encryption-test-"));
  release = await makeTestRelease(join(dir, "release-1.0.0"), { version: "1.0.0" });
  disk = join(dir, "disk.img");
  await writeFile(disk, "");
  await truncate(disk, 4 * 1024 ** 3);
}, 60_000);
afterAll(() => rm(dir, { recursive: true, force: true }));

it("is refused NoTpm by plan, install and the unattended install, and nothing is written", async () => {
  expect(existsSync("/sys/class/tpm/tpm0")).toBe(false);
  const before = await contentDigest(disk);
  const plan = await cli([
    ...["plan", "--json", "--manifest", MANIFEST, "--as", "worker-1", "--release", release],
    disk,
  ]);
  expect(plan.code).toBe(1);
  expect(JSON.parse(plan.stdout).error).toMatchObject({ kind: "refused", reason: "NoTpm" });

  const status = join(dir, "status.json");
  const install = await cli([
    ...["install", "--manifest", MANIFEST, "--as", "worker-1", "--release", release],
    ...["--status-file", status, disk],
  ]);
  expect(install.code).toBe(1);
  expect(install.stderr.trim().split("\n").at(-1)).toBe(`liken-stick install: ${NO_TPM}`);

  await mkdir(join(dir, "efivars"));
  const unattended = await cli([
    ...["unattended", "--as", "worker-1", "--manifest", MANIFEST, "--release", release],
    ...["--status-file", status, "--record", join(dir, "record.json")],
    ...["--efivars", join(dir, "efivars"), disk],
  ]);
  expect(unattended.code).toBe(1);
  expect(unattended.stderr).toContain(NO_TPM);
  expect(await contentDigest(disk)).toBe(before);
}, 120_000);
