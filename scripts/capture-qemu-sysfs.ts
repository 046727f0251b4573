// Captures the sysfs subtree the hardware report reads (hardware/sysfs.ts) from a real QEMU
// guest: the stick boots under OVMF with one device of each kind the report must know (a
// virtio-blk disk, an NVMe disk behind a PCIe root port, an AHCI/SATA disk, the stick itself
// as USB storage behind xHCI, a virtio-net and an e1000e port),
// hwreport/fixtures/capture.sh copies the subtree inside the guest, and the copy comes out
// through the serial console as one line per file, link or folder. The result is the
// fixture tree of hwreport/qemu-q35.test.ts.
//
//   npx tsx scripts/capture-qemu-sysfs.ts [DEST]   (default hwreport/fixtures/qemu-q35)
//
// A few minutes under TCG. The stick boots with liken.shell=1 (a shell instead of the
// menu); the NICs are brought up first, so carrier and speed are those of a live link.
import { mkdtemp, rm, truncate, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { repoRoot } from "../common/repo-root.ts";
import { GIB } from "../common/size.ts";
import { copyTreeOut, sendFile } from "../test/qemu/guest-files.ts";
import { shell, waitForShell } from "../test/qemu/guest-shell.ts";
import { startVm } from "../test/qemu/harness.ts";
import { cachedRelease, cachedStick } from "../testing/cached-build.ts";

const root = repoRoot();
const dest = resolve(process.argv[2] ?? join(root, "hwreport/fixtures/qemu-q35"));

const scratch = await mkdtemp(join(tmpdir(), "liken-capture-"));
try {
  const release = await cachedRelease({ version: "1.0.0" });
  const stick = await cachedStick({
    manifest: join(root, "test/fixtures/manifests/good/small.toml"),
    releaseDir: release,
    append: ["liken.shell=1"],
  });
  const disk = async (name: string, size: number) => {
    const file = join(scratch, name);
    await writeFile(file, "");
    await truncate(file, size);
    return file;
  };
  const vm = await startVm({
    stick,
    disks: [
      { path: await disk("virtio.img", 4 * GIB), bus: "virtio", serial: "liken-virtio" },
      // A server's NVMe sits behind a root port, whose pcieport driver is built in.
      { path: await disk("nvme.img", 8 * GIB), bus: "nvme", serial: "liken-nvme", rootPort: true },
      { path: await disk("sata.img", 16 * GIB), bus: "ahci", serial: "liken-sata" },
    ],
    nics: ["virtio", "e1000e"],
  });
  try {
    await vm.waitFor(/liken\.shell=1: no menu/, 240_000);
    await vm.waitFor(/a shell follows/, 10_000);
    const run = (command: string, done: RegExp, timeoutMs?: number) =>
      shell(vm, command, done, timeoutMs);
    await waitForShell(vm);
    await run(
      'for n in $(ls /sys/class/net); do ip link set dev $n up; done; sleep 3; echo "links ""up"',
      /^links up$/,
    );
    await sendFile(vm, join(root, "hwreport/fixtures/capture.sh"), "/tmp/capture.sh");
    await run('sh /tmp/capture.sh /tmp/cap && echo "captured ""ok"', /^captured ok$/, 120_000);
    const { entries, files } = await copyTreeOut(
      vm,
      { dir: "/tmp/cap", find: "sys", timeoutMs: 300_000 },
      dest,
    );
    console.log(`${entries} entries (${files} files) from the guest into ${dest}`);
  } finally {
    await vm.stop();
  }
} finally {
  await rm(scratch, { recursive: true, force: true });
}
