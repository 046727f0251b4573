// Runs the host's udevadm (Debian 12's systemd 252) over fixture trees of
// hardware/fixtures/net-names/ in a chroot (testing/udevadm.ts: udevadmInChroot):
//
//   npx tsx scripts/udevadm-chroot.ts CASE...          compares with the case's udevadm.txt
//   npx tsx scripts/udevadm-chroot.ts --write CASE...  writes udevadm.txt (hand-made cases)
//
// For a captured case this is a second check of the capture: the copied tree must give
// what udevadm said on the live sysfs in the guest. For a hand-made case, whose tree no
// machine printed, the chroot's answer is the expected one. Needs root (unshare, chroot).
import { cp, mkdir, mkdtemp, readdir, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { repoRoot } from "../common/repo-root.ts";
import { bundleUdevadm, udevadmInChroot, udevadmVersion } from "../testing/udevadm.ts";

const fixtures = join(repoRoot(), "hardware/fixtures/net-names");
const args = process.argv.slice(2);
const write = args.includes("--write");
const cases = args.filter((a) => a !== "--write");
if (cases.length === 0) throw new Error("name at least one case of hardware/fixtures/net-names");

const scratch = await mkdtemp(join(tmpdir(), "liken-udevadm-chroot-"));
let differ = 0;
try {
  const bundle = join(scratch, "udev");
  await bundleUdevadm(bundle);
  for (const name of cases) {
    const root = join(scratch, name);
    await cp(join(fixtures, name, "sys"), join(root, "sys"), {
      recursive: true,
      verbatimSymlinks: true,
    });
    await cp(bundle, join(root, "udev"), { recursive: true });
    await mkdir(join(root, "usr/lib/udev"), { recursive: true });
    await mkdir(join(root, "usr/lib/systemd"), { recursive: true });
    await cp(join(bundle, "rules"), join(root, "usr/lib/udev/rules.d"), { recursive: true });
    await cp(join(bundle, "network"), join(root, "usr/lib/systemd/network"), { recursive: true });
    const ifaces = (await readdir(join(root, "sys/class/net"))).sort();
    const netIds: string[] = [];
    const tests: string[] = [];
    for (const iface of ifaces) {
      const uevent = await readFile(join(root, "sys/class/net", iface, "uevent"), "utf8");
      const ifindex = Number(/^IFINDEX=(\d+)$/m.exec(uevent)?.[1] ?? 0);
      const answer = await udevadmInChroot(root, iface, ifindex);
      netIds.push(`== ${iface} test-builtin net_id\n${answer.netId}`);
      tests.push(`== ${iface} test\n${answer.test}`);
    }
    const said = [...netIds, ...tests].join("");
    const file = join(fixtures, name, "udevadm.txt");
    if (write) {
      const header =
        `# udevadm --version: ${await udevadmVersion()}\n` +
        "# hand-made tree: run by scripts/udevadm-chroot.ts in a chroot over it, not on a machine\n";
      await writeFile(file, header + said);
      console.log(`${name}: wrote ${file}`);
    } else {
      const captured = (await readFile(file, "utf8"))
        .split("\n")
        .filter((l) => !l.startsWith("#"))
        .join("\n");
      if (captured.trim() === said.trim())
        console.log(`${name}: the chroot says what the guest said`);
      else {
        differ++;
        console.log(`${name}: the chroot differs from the capture:\n${said}`);
      }
    }
  }
} finally {
  await rm(scratch, { recursive: true, force: true });
}
process.exitCode = differ > 0 ? 1 : 0;
