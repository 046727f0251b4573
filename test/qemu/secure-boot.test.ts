// Secure Boot on a machine like a server with its keys cleared: OVMF's Secure Boot build
// (SMM, the variable store writable only from SMM) with no keys enrolled (setup mode) and a
// TPM 2.0 (swtpm) OVMF measures into. The stick signed with the test cluster's keys boots
// (setup mode enforces nothing), reads the TPM event log, enrolls the keys from Linux and
// restarts with Secure Boot on. With a virtio NIC whose option ROM OVMF ran, db keeps
// Microsoft's UEFI CA and the console names the NIC; with the ROM absent the cluster's key
// is alone in db; a manifest with keep_microsoft = false and the ROM there enrolls nothing.
// With the keys enrolled, the firmware refuses an unsigned stick, and systemd-boot a signed
// stick whose kernel command line was changed by one byte: nothing of either ever runs. A
// machine with the keys it shipped with (Microsoft's and Debian's) refuses the cluster's
// stick (docs/image.md says what to do).
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { commonName } from "../../formats/pe-signer.ts";
import { decodeSignatureLists } from "../../formats/secure-boot-vars.ts";
import { cachedRelease, cachedStick } from "../../testing/cached-build.ts";
import { readVarStore } from "../../testing/efi-varstore.ts";
import { startSwtpm } from "../../testing/swtpm.ts";
import { sparseFile } from "../disk-files.ts";
import { shell } from "./guest-shell.ts";
import { startVm, type VmOptions } from "./harness.ts";
import { menuStick } from "./menu-screen.ts";

const KEYS = "test/fixtures/keys/cluster";
// The test keys' owner GUID (test/fixtures/keys/cluster/owner.guid) names them: `liken db afd13149`.
const OWN = "afd13149";
/** No [secure_boot]: keep_microsoft is not set, the machine decides. */
const MANIFEST = "test/fixtures/manifests/good/small.toml";
/** small.toml with keep_microsoft = false. */
const WITHOUT_MICROSOFT = "test/fixtures/manifests/good/secure-boot.toml";
const VIRTIO_NIC = /\S+ Red Hat, Inc\. Virtio (1\.0 )?network device/;

let dir: string;
let signed: string;
let unsigned: string;
let release: string;
/** The variables of the machine once the signed stick enrolled the keys. */
let enrolled: string;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "liken-qemu-secure-boot-"));
  // A signed stick carries a release signed with the same keys (an unsigned one is refused).
  release = await cachedRelease({ version: "1.0.0", signKeys: KEYS });
  signed = await cachedStick({ manifest: MANIFEST, releaseDir: release, signKeys: KEYS });
  unsigned = await menuStick();
  enrolled = join(dir, "enrolled-vars.fd");
}, 900_000);
afterAll(() => rm(dir, { recursive: true, force: true }));

function keysIn(varsFile: Buffer) {
  const vars = readVarStore(varsFile);
  const names = (name: string) =>
    decodeSignatureLists(vars.find((v) => v.name === name)?.data ?? Buffer.alloc(0)).map((e) =>
      commonName(e.certificate),
    );
  return { pk: names("PK"), kek: names("KEK"), db: names("db") };
}

/**
 * A machine in setup mode with its own TPM 2.0 (a new swtpm state: a new machine's TPM). It
 * resets inside QEMU: swtpm ends with the QEMU it served, so a new QEMU would find no TPM.
 */
async function inSetupMode(name: string, options: VmOptions) {
  const swtpm = await startSwtpm(join(dir, `${name}-tpm`), "vm");
  const vm = await startVm({ ...options, firmware: "setup-mode", tpmSocket: swtpm.ctrlSocket });
  return {
    vm,
    /** Stops QEMU and the TPM; the variable store the firmware wrote. */
    async stop(): Promise<Buffer> {
      await vm.qmp.execute("quit").catch(() => {});
      await vm.waitForExit(30_000);
      const vars = await readFile(vm.varsFile);
      await vm.stop();
      await swtpm.stop();
      return vars;
    },
  };
}

describe("a machine in setup mode", () => {
  it("with a NIC's option ROM: keeps Microsoft's CA in db, names the NIC, restarts with Secure Boot on and reaches the menu", async () => {
    const disk = await sparseFile(join(dir, "blank.img"), 4 * 1024 ** 3);
    const machine = await inSetupMode("rom", {
      stick: signed,
      disks: [{ path: disk, bus: "virtio" }],
      nics: ["virtio"],
    });
    const { vm } = machine;
    const because = await vm.waitFor(/^liken-stick: db keeps Microsoft's UEFI CA/, 240_000);
    expect(because).toMatch(
      /^liken-stick: db keeps Microsoft's UEFI CA, which signs the option ROMs the firmware ran: /,
    );
    expect(because).toMatch(VIRTIO_NIC);
    expect(await vm.waitFor(/^liken-stick: enrolled db: /, 60_000)).toBe(
      `liken-stick: enrolled db: liken db ${OWN}, Microsoft Corporation UEFI CA 2011`,
    );
    await vm.waitFor(`liken-stick: enrolled PK: liken PK ${OWN}`, 60_000);
    await vm.waitFor("liken-stick: Secure Boot keys enrolled: restarting with Secure Boot on");
    // The same stick again, now checked by the firmware: the menu is the second boot's.
    await vm.waitFor("EFI stub: UEFI Secure Boot is enabled.", 240_000);
    await vm.waitFor(/Arrows or j\/k: move/, 120_000);
    expect(vm.console().match(/liken-stick: payload \/dev\/sd\w+2 verified/g)).toHaveLength(2);
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
    const vars = await machine.stop();

    // The firmware's own store holds the cluster's PK and KEK, and db with Microsoft's CA.
    expect(keysIn(vars)).toEqual({
      pk: [`liken PK ${OWN}`],
      kek: [`liken KEK ${OWN}`],
      db: [`liken db ${OWN}`, "Microsoft Corporation UEFI CA 2011"],
    });
    await writeFile(enrolled, vars);
  });

  it("without the option ROM: enrolls the cluster's key alone in db", async () => {
    const machine = await inSetupMode("no-rom", {
      stick: signed,
      nics: [{ model: "virtio", noOptionRom: true }],
    });
    await machine.vm.waitFor(
      "liken-stick: db holds the cluster's key alone: the firmware ran no option ROM",
      240_000,
    );
    await machine.vm.waitFor(`liken-stick: enrolled db: liken db ${OWN}`, 60_000);
    await machine.vm.waitFor("EFI stub: UEFI Secure Boot is enabled.", 240_000);
    expect(keysIn(await machine.stop())).toEqual({
      pk: [`liken PK ${OWN}`],
      kek: [`liken KEK ${OWN}`],
      db: [`liken db ${OWN}`],
    });
  });

  it("keep_microsoft = false with the option ROM: enrolls nothing, names the NIC and what to do, and holds", async () => {
    const stick = await cachedStick({
      manifest: WITHOUT_MICROSOFT,
      releaseDir: release,
      signKeys: KEYS,
    });
    const machine = await inSetupMode("refused", { stick, nics: ["virtio"] });
    const refusal = await machine.vm.waitFor(/nothing enrolled: /, 240_000);
    expect(refusal).toMatch(
      /nothing enrolled: the manifest says keep_microsoft = false, and the firmware ran option ROMs that Microsoft's UEFI CA signs, which would no longer run: /,
    );
    expect(refusal).toMatch(VIRTIO_NIC);
    await machine.vm.waitFor(
      "set keep_microsoft = true in [secure_boot] and build the stick again, or remove or disable those cards' option ROMs in the firmware's setup",
      10_000,
    );
    await machine.vm.waitFor("liken-stick: the console holds here; a shell follows", 30_000);
    expect(machine.vm.console()).not.toContain("Arrows or j/k: move");
    // One boot: nothing restarted the machine.
    expect(machine.vm.console().match(/Linux version /g)).toHaveLength(1);
    // Still in setup mode: no key in the firmware's store.
    expect(keysIn(await machine.stop())).toEqual({ pk: [], kek: [], db: [] });
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
