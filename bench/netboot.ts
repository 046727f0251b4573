// Times a machine booted from the network (OVMF's PXE, dnsmasq's TFTP, iPXE, HTTP: the
// netboot tests' site, test/qemu/netboot-site.ts) to the stick's menu, against the same
// machine booted from the stick to its menu, in the same run, and prints the ratio, each
// network stage's share and the bytes one machine fetches.
// Run: npm run bench:netboot
import { mkdtemp, rm, stat, truncate, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { GIB, MIB } from "../common/size.ts";
import { folderBytes } from "../image-build/stick/build-stick.ts";
import { startVm, stopAllVms } from "../test/qemu/harness.ts";
import { startNetbootSite } from "../test/qemu/netboot-site.ts";
import { cachedNetboot, cachedRelease, cachedStick } from "../testing/cached-build.ts";

const RUNS = 3;
const MANIFEST = new URL("../examples/cluster.toml", import.meta.url).pathname;
const MENU = /Arrows or j\/k: move/;
const NET_STAGES = [
  { name: "firmware's PXE: DHCP, iPXE by TFTP", line: /iPXE initialising devices/ },
  { name: "iPXE: DHCP, boot.ipxe", line: /boot\.ipxe\.\.\. ok/ },
  { name: "iPXE: kernel and initramfs by HTTP", line: /EFI stub: / },
  { name: "kernel to /init", line: /Run \/init as init process/ },
  { name: "drivers and DHCP", line: /^liken-stick: \w+ has [\d.]+\/\d+; fetching / },
  { name: "payload fetched and checked", line: /liken-stick: payload .* verified/ },
  { name: "the stick's root to the menu", line: MENU },
];

async function secondsTo(lines: readonly RegExp[], options: Parameters<typeof startVm>[0]) {
  const t = performance.now();
  const vm = await startVm(options);
  const at: number[] = [];
  for (const line of lines) {
    await vm.waitFor(line, 300_000);
    at.push((performance.now() - t) / 1000);
  }
  await vm.stop();
  return at;
}

function median(xs: number[]): number {
  return [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] as number;
}

const dir = await mkdtemp(join(tmpdir(), "liken-bench-netboot-"));
const site = { stop: async () => {} };
try {
  const release = await cachedRelease({ version: "1.0.0" });
  const stick = await cachedStick({ manifest: MANIFEST, releaseDir: release });
  const folder = await cachedNetboot({
    manifest: MANIFEST,
    releaseDir: release,
    url: "http://10.77.0.1:8080/",
  });
  const running = await startNetbootSite(dir, folder);
  site.stop = running.stop;
  const disk = join(dir, "disk.img");
  await writeFile(disk, "");
  await truncate(disk, 8 * GIB);
  const stickRuns: number[] = [];
  const netRuns: number[][] = [];
  for (let i = 0; i < RUNS; i++) {
    const [menu] = await secondsTo([MENU], { stick, disks: [{ path: disk, bus: "virtio" }] });
    stickRuns.push(menu as number);
    netRuns.push(
      await secondsTo(
        NET_STAGES.map((s) => s.line),
        { disks: [{ path: disk, bus: "virtio" }], nics: [running.nic("52:54:00:4c:4b:99", i)] },
      ),
    );
  }
  const stickMenu = median(stickRuns);
  const netMenu = median(netRuns.map((r) => r[r.length - 1] as number));
  console.log(`OVMF, TCG, ${RUNS} runs, medians`);
  console.log(`stick to its menu:           ${stickMenu.toFixed(1)} s`);
  console.log(
    `network to the menu:         ${netMenu.toFixed(1)} s   ratio ${(netMenu / stickMenu).toFixed(2)}`,
  );
  NET_STAGES.forEach((stage, i) => {
    const d = median(netRuns.map((r) => (r[i] as number) - (i === 0 ? 0 : (r[i - 1] as number))));
    console.log(`  ${stage.name.padEnd(38)} ${d.toFixed(1).padStart(5)} s`);
  });
  const fetched =
    (await stat(join(folder, "ipxe.efi"))).size +
    (await stat(join(folder, "vmlinuz"))).size +
    (await stat(join(folder, "initrd.img"))).size +
    (await folderBytes(join(folder, "payload")));
  console.log(`bytes one machine fetches:   ${(fetched / MIB).toFixed(1)} MiB`);
} finally {
  await stopAllVms();
  await site.stop();
  await rm(dir, { recursive: true, force: true });
}
