// Captures the fixtures of hardware/net-names.test.ts: for each case below, the stick boots
// under OVMF with that case's NICs, hardware/fixtures/net-names/capture.sh copies the sysfs
// files udev's naming reads, runs the host's own udevadm (Debian 12's systemd 252, brought
// in on a raw virtio disk holding a tar) on the live sysfs, and everything comes out
// through the serial console as one line per file, link or folder into
// hardware/fixtures/net-names/<case>/ (sys/..., udevadm.txt, udevadm-debug.txt).
//
//   npx tsx scripts/capture-net-names.ts [CASE...]   (default: every case)
//
// Each case is one boot, a few minutes under TCG. The stick boots with liken.shell=1.
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { repoRoot } from "../common/repo-root.ts";
import { copyTreeOut, sendFile } from "../test/qemu/guest-files.ts";
import { shell, waitForShell } from "../test/qemu/guest-shell.ts";
import { startVm, type VmOptions } from "../test/qemu/harness.ts";
import { cachedRelease, cachedStick } from "../testing/cached-build.ts";
import { QEMU } from "../testing/qemu/index.ts";
import { bundleUdevadm, udevadmVersion } from "../testing/udevadm.ts";
import { run } from "../tools/exec.ts";
import { createTar } from "../tools/tar.ts";

interface Case {
  readonly machine: "q35" | "pc";
  readonly nics: NonNullable<VmOptions["nics"]>;
  /** What the case is for, written into the fixture's README. */
  readonly about: string;
}

const CASES: Record<string, Case> = {
  // Every NIC of the q35 cases on one machine: names depend only on each NIC's own place.
  "q35-mixed": {
    machine: "q35",
    about:
      "q35: virtio-net acpi-index=1 on the root bus, plain virtio-net, e1000e behind a " +
      "pcie-root-port, e1000e acpi-index=3 behind a root port, a multi-function slot " +
      "(virtio-net at 0x10.0 multifunction=on and 0x10.1), a USB NIC (usb-net on xHCI)",
    nics: [
      { model: "virtio", acpiIndex: 1 },
      "virtio",
      { model: "e1000e", rootPort: true },
      { model: "e1000e", rootPort: true, acpiIndex: 3 },
      { model: "virtio", addr: "0x10.0", multifunction: true },
      { model: "virtio", addr: "0x10.1" },
      "usb",
    ],
  },
  "pc-i440fx": {
    machine: "pc",
    about:
      "pc (i440fx, ACPI PCI hotplug on the root bus): virtio-net, e1000e, virtio-net acpi-index=2",
    nics: ["virtio", "e1000e", { model: "virtio", acpiIndex: 2 }],
  },
};

const root = repoRoot();
const fixtures = join(root, "hardware/fixtures/net-names");

const wanted = process.argv.slice(2);
for (const name of wanted) if (!CASES[name]) throw new Error(`no case ${name}`);
const release = await cachedRelease({ version: "1.0.0" });
const stick = await cachedStick({
  manifest: join(root, "test/fixtures/manifests/good/small.toml"),
  releaseDir: release,
  append: ["liken.shell=1"],
});
const qemuVersion = (await run(QEMU, ["--version"])).stdout.split("\n")[0] ?? "";
const udevadm = await udevadmVersion();
for (const [name, c] of Object.entries(CASES)) {
  if (wanted.length > 0 && !wanted.includes(name)) continue;
  await capture(name, c);
}

async function capture(name: string, c: Case): Promise<void> {
  const scratch = await mkdtemp(join(tmpdir(), "liken-net-names-"));
  const dest = join(fixtures, name);
  try {
    await bundleUdevadm(join(scratch, "udev"));
    const tar = join(scratch, "udev.tar");
    await createTar(tar, scratch, ["udev"]);
    const vm = await startVm({
      stick,
      machine: c.machine,
      disks: [{ path: tar, bus: "virtio", serial: "liken-udevadm" }],
      nics: c.nics,
    });
    try {
      await vm.waitFor(/liken\.shell=1: no menu/, 240_000);
      await vm.waitFor(/a shell follows/, 10_000);
      const sh = (command: string, done: RegExp, timeoutMs?: number) =>
        shell(vm, command, done, timeoutMs);
      await waitForShell(vm);
      // The USB NIC's driver comes by modalias after the shell starts: wait for every NIC.
      await sh(
        `n=0; while [ $(ls /sys/class/net | grep -vc '^lo$') -lt ${c.nics.length} ] && [ $n -lt 60 ]; do sleep 1; n=$((n+1)); done; echo "nics ""$(ls /sys/class/net | tr '\\n' ' ')"`,
        /^nics /,
        90_000,
      );
      await sh(
        'mkdir -p /tmp/u && tar -x -C /tmp/u < /dev/vda && echo "udevadm ""in"',
        /^udevadm in$/,
      );
      await sendFile(vm, join(fixtures, "capture.sh"), "/tmp/capture.sh");
      await sh(
        'sh /tmp/capture.sh /tmp/cap /tmp/u/udev && echo "captured ""ok"',
        /^captured ok$/,
        300_000,
      );
      const { entries } = await copyTreeOut(
        vm,
        { dir: "/tmp/cap", find: ". -mindepth 1", timeoutMs: 600_000 },
        dest,
      );
      await writeFile(
        join(dest, "README.md"),
        `# ${name}\n\nCaptured by scripts/capture-net-names.ts in a QEMU guest (${qemuVersion}, OVMF, ` +
          `TCG): ${c.about}.\n\nudevadm.txt is the host's udevadm ${udevadm}, run inside the guest on its live ` +
          "sysfs: `udevadm test-builtin net_id` and `udevadm test` (ID_NET_NAME is the name udev gives) " +
          "for every interface.\n",
      );
      console.log(`${name}: ${entries} entries into ${dest}`);
    } finally {
      await vm.stop();
    }
  } finally {
    await rm(scratch, { recursive: true, force: true });
  }
}
