// examples/cluster.toml for arm64 machines, which `npm run vm -- --arch arm64` and
// `npm run bench:boot` build their arm64 stick from. The example names amd64 machines (no
// arch), and a stick installs only the machines of its release's arch; keeping one example
// and deriving this one keeps the two from drifting apart.
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { writeFileAtomic } from "../common/atomic-file.ts";
import { repoRoot } from "../common/repo-root.ts";
import { defaultCacheDir } from "../image-build/inputs/index.ts";

/**
 * The name the arm64 VM's first NIC gets. QEMU's virt gives a guest no acpi-index (no
 * ACPI PCI hotplug: testing/qemu/board.ts), so there is no onboard name like eno1; its
 * root ports are PCIe hotplug slots (pciehp), named by their slot number, 64 for the first
 * NIC's (testing/qemu/args.ts), and udev names the NIC in it ens64.
 */
export const ARM64_VM_FIRST_PORT = "ens64";

/**
 * `text` with `arch = "arm64"` in every [[machines]] table and leader-1's port eno1 named
 * as the arm64 VM names it (pure). Comments and order stay as they are.
 */
export function arm64Example(text: string): string {
  return text
    .replace(/^\[\[machines\]\]\n/gm, '[[machines]]\narch = "arm64"\n')
    .replace(/^ports = \["eno1"\]$/m, `ports = ["${ARM64_VM_FIRST_PORT}"]`);
}

/** Writes the arm64 example into the build cache and returns its path. */
export async function writeArm64Example(): Promise<string> {
  const text = await readFile(join(repoRoot(), "examples/cluster.toml"), "utf8");
  // Atomically: `npm run vm` and the bench may write it at once.
  const path = join(defaultCacheDir("examples"), "cluster-arm64.toml");
  await writeFileAtomic(path, arm64Example(text), 0o644);
  return path;
}
