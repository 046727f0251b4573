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
import { mkdir, mkdtemp, readFile, rm, stat, symlink, truncate, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { gzipSync } from "node:zlib";
import { repoRoot } from "../common/repo-root.ts";
import { GIB } from "../common/size.ts";
import { cachedRelease, cachedStick } from "../image-build/cached-build.ts";
import { shell, waitForShell } from "../test/qemu/guest-shell.ts";
import { startVm } from "../test/qemu/harness.ts";

const root = repoRoot();
const dest = resolve(process.argv[2] ?? join(root, "hwreport/fixtures/qemu-q35"));
// Markers the guest prints; typed with a break ("CAP""TURE") so the echo of the command
// line never matches them.
const BEGIN = "CAPTURE-BEGIN";
const END = "CAPTURE-END";

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
    const script = gzipSync(await readFile(join(root, "hwreport/fixtures/capture.sh"))).toString(
      "base64",
    );
    // Busybox's line editor takes at most 1024 characters a line: the script goes in pieces.
    for (let at = 0; at < script.length; at += 200)
      await run(
        `printf %s ${script.slice(at, at + 200)} >> /tmp/capture.b64; echo "piece ""${at}"`,
        new RegExp(`^piece ${at}$`),
      );
    await run(
      'base64 -d < /tmp/capture.b64 | gunzip > /tmp/capture.sh && sh /tmp/capture.sh /tmp/cap && echo "captured ""ok"',
      /^captured ok$/,
      120_000,
    );
    const dump = [
      `cd /tmp/cap && echo "${BEGIN.slice(0, 4)}""${BEGIN.slice(4)}";`,
      "find sys | sort | while read -r p; do",
      'if [ -L "$p" ]; then echo "L $p $(readlink "$p")";',
      'elif [ -d "$p" ]; then echo "D $p";',
      'else echo "F $p $(base64 -w 0 < "$p")"; fi; done;',
      `echo "${END.slice(0, 4)}""${END.slice(4)}"`,
    ].join(" ");
    await run(dump, new RegExp(`^${END}$`), 300_000);
    const lines = vm
      .console()
      .split("\n")
      .map((l) => l.trim());
    const begin = lines.lastIndexOf(BEGIN);
    const end = lines.lastIndexOf(END);
    if (begin < 0 || end < begin) throw new Error(`no capture on the console:\n${vm.tail()}`);
    const entries = lines.slice(begin + 1, end);
    await rm(dest, { recursive: true, force: true });
    let files = 0;
    for (const line of entries) {
      const [kind, path, value = ""] = line.split(" ");
      if (!path?.startsWith("sys")) throw new Error(`not a capture line: ${JSON.stringify(line)}`);
      const target = join(dest, path);
      if (kind === "D") await mkdir(target, { recursive: true });
      else if (kind === "L") {
        await mkdir(dirname(target), { recursive: true });
        await symlink(value, target);
      } else if (kind === "F") {
        await mkdir(dirname(target), { recursive: true });
        await writeFile(target, Buffer.from(value, "base64"));
        files++;
      } else throw new Error(`not a capture line: ${JSON.stringify(line)}`);
    }
    // A link whose target the walk never reads (nvme0's subsystem, class/nvme) gets its
    // folder, with an empty .keep, so git keeps it and no link in the fixture dangles.
    for (const line of entries.filter((l) => l.startsWith("L "))) {
      const [, path = "", value = ""] = line.split(" ");
      const target = resolve(dirname(join(dest, path)), value);
      if (!(await stat(target).catch(() => undefined))) {
        await mkdir(target, { recursive: true });
        await writeFile(join(target, ".keep"), "");
      }
    }
    console.log(`${entries.length} entries (${files} files) from the guest into ${dest}`);
  } finally {
    await vm.stop();
  }
} finally {
  await rm(scratch, { recursive: true, force: true });
}
