// Secure Boot on arm64 (issue 44): an Arm server with its keys cleared is AAVMF in setup mode
// (Debian 12's plain AAVMF with its empty variables: its code is the Secure Boot build
// Microsoft's descriptor names too). The stick signed with the test cluster's keys enrolls
// them from Linux, keeping Microsoft's CA (no TPM for Linux on virt: it cannot check the
// option ROMs), restarts with Secure Boot on and installs leader-1 unattended; the disk boots
// with Secure Boot on. AAVMF with Microsoft's keys only refuses that disk.
import { copyFile, mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, beforeAll, expect, it } from "vitest";
import { commonName } from "../../formats/pe-signer.ts";
import { decodeSignatureLists } from "../../formats/secure-boot-vars.ts";
import { cachedRelease, cachedStick } from "../../testing/cached-build.ts";
import { readVarStore } from "../../testing/efi-varstore.ts";
import { sparseFile } from "../disk-files.ts";
import { inspect } from "./boot-path.ts";
import { startVm, stopAllVms } from "./harness.ts";

const MANIFEST = "test/fixtures/manifests/good/small-arm64.toml";
const KEYS = "test/fixtures/keys/cluster";
// The test keys' owner GUID (test/fixtures/keys/cluster/owner.guid) names them.
const OWN = "afd13149";
const BOOT_MS = 300_000;

let dir: string;
let stick: string;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "liken-qemu-arm64-sb-"));
  const release = await cachedRelease({ version: "1.0.0", arch: "arm64", signKeys: KEYS });
  stick = await cachedStick({
    manifest: MANIFEST,
    releaseDir: release,
    append: ["liken.install=leader-1", "liken.then=reboot"],
    signKeys: KEYS,
  });
}, 900_000);
afterEach(stopAllVms);
afterAll(() => rm(dir, { recursive: true, force: true }));

it("enrolls the cluster's keys in AAVMF's setup mode, installs with Secure Boot on, and the disk boots with it; Microsoft's keys alone refuse the disk", async () => {
  const disk = await sparseFile(join(dir, "leader-1.img"), 4 * 1024 ** 3);
  const stickCopy = join(dir, "stick.img");
  await copyFile(stick, stickCopy);
  const vm = await startVm({
    arch: "arm64",
    stick: stickCopy,
    stickWritable: true,
    disks: [{ path: disk, bus: "virtio" }],
    firmware: "setup-mode",
    relaunchOnReboot: true,
  });
  await vm.waitFor(
    "liken-stick: db keeps Microsoft's UEFI CA: could not check for option ROMs (no TPM)",
    BOOT_MS,
  );
  expect(await vm.waitFor(/^liken-stick: enrolled db: /, 60_000)).toBe(
    `liken-stick: enrolled db: liken db ${OWN}, Microsoft Corporation UEFI CA 2011`,
  );
  await vm.waitFor("liken-stick: Secure Boot keys enrolled: restarting with Secure Boot on");
  await vm.waitFor("EFI stub: UEFI Secure Boot is enabled.", BOOT_MS);
  await vm.waitFor(/^liken-stick: installed as leader-1 on \/dev\/vda, install /, 600_000);
  await vm.waitFor(/^liken 1\.0\.0 slot a up$/, BOOT_MS);
  // Enrollment, the stick with Secure Boot on, the disk: each a new QEMU.
  expect(vm.boots).toBe(3);
  // The kernel locks itself down under Secure Boot: the second and third boots, not the first.
  const boots = vm.console().split("Linux version ").slice(1);
  expect(boots.map((b) => b.includes("Kernel is locked down from EFI Secure Boot"))).toEqual([
    false,
    true,
    true,
  ]);
  await vm.qmp.execute("quit").catch(() => {});
  await vm.waitForExit(30_000);
  const vars = readVarStore(await readFile(vm.varsFile));
  await vm.stop();
  const names = (name: string) =>
    decodeSignatureLists(vars.find((v) => v.name === name)?.data ?? Buffer.alloc(0)).map((e) =>
      commonName(e.certificate),
    );
  expect({ pk: names("PK"), kek: names("KEK"), db: names("db") }).toEqual({
    pk: [`liken PK ${OWN}`],
    kek: [`liken KEK ${OWN}`],
    db: [`liken db ${OWN}`, "Microsoft Corporation UEFI CA 2011"],
  });
  expect((await inspect(disk)).status.boot).toMatchObject({
    slot: "a",
    version: "1.0.0",
    trial: false,
    secureBoot: "enabled",
  });

  const shipped = await startVm({
    arch: "arm64",
    disks: [{ path: disk, bus: "virtio" }],
    firmware: "microsoft",
  });
  await shipped.waitFor(
    /BdsDxe: failed to (load|start) Boot\w+ .*(Access Denied|Security Violation)/,
    120_000,
  );
  expect(shipped.console()).not.toContain("Linux version");
}, 1_800_000);
