// Captures the TPM event logs of hardware/fixtures/tpm/ from real QEMU guests: the stick
// boots with liken.shell=1 under OVMF with a TPM 2.0 (QEMU's tpm-crb on swtpm,
// testing/swtpm.ts) and one virtio-net NIC on the root bus at 00:03.0, and the guest's
// /sys/kernel/security/tpm0/binary_bios_measurements comes out over the serial console as
// one base64 line. Three machines:
//
//   virtio-rom.bin        plain OVMF, the NIC with QEMU's efi-virtio.rom (OVMF runs its driver)
//   virtio-no-rom.bin     plain OVMF, the NIC with romfile= (OVMF's own virtio-net driver)
//   secboot-virtio-rom.bin  OVMF's Secure Boot build in setup mode, the NIC with its ROM
//
// Made with QEMU 7.2 (Debian 1:7.2+dfsg-7+deb12u18), OVMF 2022.11 (Debian 2022.11-6+deb12u2)
// and swtpm 0.7.1 (Debian 0.7.1-1.3), under TCG. Each log also prints the TPM's sysfs facts
// the fixtures' tests name (its version, its driver, the NIC's PCI address and ids).
//
//   npx tsx scripts/capture-tpm-event-log.ts [DEST]   (default hardware/fixtures/tpm)
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { repoRoot } from "../common/repo-root.ts";
import { shell, waitForShell } from "../test/qemu/guest-shell.ts";
import { startVm, type Vm } from "../test/qemu/harness.ts";
import { cachedRelease, cachedStick } from "../testing/cached-build.ts";
import type { OvmfKind } from "../testing/qemu/index.ts";
import { startSwtpm } from "../testing/swtpm.ts";

const root = repoRoot();
const dest = resolve(process.argv[2] ?? join(root, "hardware/fixtures/tpm"));
const only = process.argv[3];

const MACHINES: readonly { file: string; firmware: OvmfKind; rom: boolean }[] = [
  { file: "virtio-rom.bin", firmware: "plain", rom: true },
  { file: "virtio-no-rom.bin", firmware: "plain", rom: false },
  { file: "secboot-virtio-rom.bin", firmware: "setup-mode", rom: true },
];

/** A guest file as one base64 line between markers the typed command never shows. */
async function guestFile(vm: Vm, path: string): Promise<Buffer> {
  const line = await shell(
    vm,
    `echo "file""-begin $(base64 -w 0 < ${path}) file""-end"`,
    /^file-begin \S* file-end$/,
    120_000,
  );
  return Buffer.from(line.split(" ")[1] ?? "", "base64");
}

const scratch = await mkdtemp(join(tmpdir(), "liken-capture-tpm-"));
try {
  const release = await cachedRelease({ version: "1.0.0" });
  const stick = await cachedStick({
    manifest: join(root, "examples/cluster.toml"),
    releaseDir: release,
    append: ["liken.shell=1"],
  });
  await mkdir(dest, { recursive: true });
  for (const m of MACHINES) {
    if (only && m.file !== only) continue;
    const swtpm = await startSwtpm(join(scratch, m.file), "vm");
    try {
      const vm = await startVm({
        stick,
        firmware: m.firmware,
        tpmSocket: swtpm.ctrlSocket,
        nics: [{ model: "virtio", addr: "0x3", ...(m.rom ? {} : { noOptionRom: true }) }],
      });
      try {
        await vm.waitFor(/liken\.shell=1: no menu/, 300_000);
        await waitForShell(vm);
        await shell(
          vm,
          'for f in /sys/class/tpm/tpm0/tpm_version_major /sys/class/tpm/tpm0/device/driver /sys/bus/pci/devices/0000:00:03.0; do echo "fact $f $(cat $f 2>/dev/null) $(readlink $f)"; done; cat /sys/bus/pci/devices/0000:00:03.0/vendor /sys/bus/pci/devices/0000:00:03.0/device; echo "facts ""done"',
          /^facts done$/,
        );
        console.log(`${m.file}:\n${vm.console().split("\n").slice(-8).join("\n")}`);
        const log = await guestFile(vm, "/sys/kernel/security/tpm0/binary_bios_measurements");
        if (log.length === 0) throw new Error(`${m.file}: the guest's event log is empty`);
        await writeFile(join(dest, m.file), log);
        console.log(`${m.file}: ${log.length} bytes`);
      } finally {
        await vm.stop();
      }
    } finally {
      await swtpm.stop();
    }
  }
} finally {
  await rm(scratch, { recursive: true, force: true });
}
