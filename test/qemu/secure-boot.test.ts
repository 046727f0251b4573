// Secure Boot on a machine like a server with its keys cleared: OVMF's Secure Boot build
// (SMM, the variable store writable only from SMM) with no keys enrolled (setup mode). The
// stick signed with the test cluster's keys enrolls them, restarts with Secure Boot on and
// boots; the report in that boot says so. With those keys enrolled, the firmware refuses
// an unsigned stick, and systemd-boot a signed stick whose kernel command line was changed
// by one byte: nothing of either ever runs. A machine with the keys it shipped with
// (Microsoft's and Debian's) refuses the cluster's stick (docs/image.md says what to do).
import { copyFile, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { commonName } from "../../formats/pe-signer.ts";
import { decodeSignatureLists } from "../../formats/secure-boot-vars.ts";
import { cachedRelease, cachedStick } from "../../testing/cached-build.ts";
import { readVarStore } from "../../testing/efi-varstore.ts";
import { sparseFile } from "../disk-files.ts";
import { shell } from "./guest-shell.ts";
import { startVm } from "./harness.ts";
import { menuStick } from "./menu-screen.ts";

const KEYS = "test/fixtures/keys/cluster";
// The test keys' owner GUID (test/fixtures/keys/cluster/owner.guid) names them: `liken db afd13149`.
const OWN = "afd13149";
const MANIFEST = "test/fixtures/manifests/good/small.toml";

let dir: string;
let signed: string;
let unsigned: string;
/** The variables of the machine once the signed stick enrolled the keys. */
let enrolled: string;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "liken-qemu-secure-boot-"));
  // A signed stick carries a release signed with the same keys (an unsigned one is refused).
  const release = await cachedRelease({ version: "1.0.0", signKeys: KEYS });
  signed = await cachedStick({ manifest: MANIFEST, releaseDir: release, signKeys: KEYS });
  unsigned = await menuStick();
  enrolled = join(dir, "enrolled-vars.fd");
}, 600_000);
afterAll(() => rm(dir, { recursive: true, force: true }));

function keysIn(varsFile: Buffer) {
  const vars = readVarStore(varsFile);
  const names = (name: string) =>
    decodeSignatureLists(vars.find((v) => v.name === name)?.data ?? Buffer.alloc(0)).map((e) =>
      commonName(e.certificate),
    );
  return { pk: names("PK"), kek: names("KEK"), db: names("db") };
}

describe("a machine in setup mode", () => {
  it("enrolls the cluster's keys from the signed stick, restarts with Secure Boot on and reaches the menu", async () => {
    const disk = await sparseFile(join(dir, "blank.img"), 4 * 1024 ** 3);
    const vm = await startVm({
      stick: signed,
      disks: [{ path: disk, bus: "virtio" }],
      firmware: "setup-mode",
      relaunchOnReboot: true,
    });
    await vm.waitFor("Enrolling secure boot keys from directory: \\loader\\keys\\auto", 120_000);
    await vm.waitFor("EFI stub: UEFI Secure Boot is enabled.", 120_000);
    expect(vm.boots).toBe(2);
    await vm.waitFor(/liken-stick: payload \/dev\/sd\w+2 verified/, 120_000);
    await vm.waitFor(/Arrows or j\/k: move/, 120_000);
    // The menu's shell (after install and wipe as each machine, and Hardware report).
    await vm.type("jjjjj");
    await vm.type("\n");
    await vm.waitFor(/liken stick shell: type exit to go back to the menu/, 60_000);
    expect(await shell(vm, "liken-stick hwreport", /^ *firmware +UEFI/, 120_000)).toMatch(
      /^ *firmware +UEFI, Secure Boot on;/,
    );
    expect((await vm.waitFor(/^ *db keys /, 10_000)).trim()).toBe(
      `db keys     liken db ${OWN}, Microsoft Corporation UEFI CA 2011`,
    );
    await vm.qmp.execute("quit");
    await vm.waitForExit(30_000);

    // The firmware's own store holds the cluster's PK and KEK, and db with Microsoft's CA.
    expect(keysIn(await readFile(vm.varsFile))).toEqual({
      pk: [`liken PK ${OWN}`],
      kek: [`liken KEK ${OWN}`],
      db: [`liken db ${OWN}`, "Microsoft Corporation UEFI CA 2011"],
    });
    await copyFile(vm.varsFile, enrolled);
    await vm.stop();
  });
});

describe("a machine with the cluster's keys enrolled", () => {
  it("does not start an unsigned stick", async () => {
    const vm = await startVm({ stick: unsigned, firmware: "setup-mode", varsFrom: enrolled });
    await vm.waitFor(/BdsDxe: failed to load Boot\w+ .*Access Denied/, 120_000);
    expect(vm.console()).not.toContain("Linux version");
    await vm.stop();
  });

  it("does not start a signed stick whose kernel command line changed by one byte", async () => {
    const image = await readFile(signed);
    // The command line lives in the unified kernel image's .cmdline section, inside its signature.
    const cmdline = Buffer.from("console=tty0 console=ttyS0,115200 panic=30\0");
    const at = image.indexOf(cmdline);
    expect(at).toBeGreaterThan(0);
    expect(image.indexOf(cmdline, at + 1)).toBe(-1);
    image.write("1", at + cmdline.indexOf("panic=30") + "panic=3".length, "latin1");
    const tampered = join(dir, "tampered.img");
    await writeFile(tampered, image);
    const vm = await startVm({ stick: tampered, firmware: "setup-mode", varsFrom: enrolled });
    // systemd-boot (signed, so it starts) asks the firmware to load the image, which refuses.
    await vm.waitFor(/Error loading .*stick\.efi.*Security [Vv]iolation|Access Denied/, 120_000);
    expect(vm.console()).not.toContain("Linux version");
    await vm.stop();
  });
});

describe("a machine with Microsoft's and Debian's keys, as shipped (OVMF_VARS_4M.ms.fd)", () => {
  it("does not start the cluster-signed stick: its db holds no key of the cluster", async () => {
    const vm = await startVm({ stick: signed, firmware: "microsoft" });
    await vm.waitFor(
      /BdsDxe: failed to (load|start) Boot\w+ .*(Access Denied|Security Violation)/,
      120_000,
    );
    expect(vm.console()).not.toContain("Linux version");
    await vm.stop();
  });
});
