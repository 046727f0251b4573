// Times the stick from QEMU's start to its menu on the serial console, and an installed
// disk to its `liken 1.0.0 slot a up` (the boot agent done), against a bare kernel + busybox
// initramfs booted through the same OVMF and systemd-boot, in the same run, and prints the
// ratios (docs/design.md section 10: at most 1.5), each stage's share (from the time each
// stage's console line arrives) and the stick's size.
// Run: npm run bench:boot
import { copyFile, mkdir, mkdtemp, rm, stat, truncate, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { GIB, MIB } from "../common/size.ts";
import { loaderConf } from "../formats/boot-entries.ts";
import { PARTITION_TYPES } from "../formats/gpt-types.ts";
import { buildFatImage } from "../image-build/fat-image.ts";
import { buildGptImage } from "../image-build/gpt-image.ts";
import { buildInitramfs } from "../image-build/initramfs.ts";
import { requireUnpackedInputs } from "../image-build/unpacked.ts";
import { bundleTestCommand, cli } from "../test/cli.ts";
import { startVm, stopAllVms } from "../test/qemu/harness.ts";
import { cachedRelease, cachedStick } from "../testing/cached-build.ts";

// Five: the machine's speed varies from boot to boot, and the median of five moves less.
const RUNS = 5;
// test/cli.ts runs the test bundle, which only the test run builds otherwise.
await bundleTestCommand();
const dir = await mkdtemp(join(tmpdir(), "liken-bench-boot-"));

async function bareImage(): Promise<string> {
  const inputs = await requireUnpackedInputs();
  const tree = join(dir, "tree");
  await mkdir(join(tree, "bin"), { recursive: true });
  await copyFile(inputs.busybox, join(tree, "bin/busybox"));
  await writeFile(
    join(tree, "init"),
    "#!/bin/busybox sh\n/bin/busybox mount -t devtmpfs d /dev\necho 'bare up' > /dev/ttyS0\nexec /bin/busybox sleep 3600\n",
    { mode: 0o755 },
  );
  const esp = join(dir, "esp");
  await mkdir(join(esp, "EFI/BOOT"), { recursive: true });
  await mkdir(join(esp, "loader/entries"), { recursive: true });
  await copyFile(inputs.systemdBoot, join(esp, "EFI/BOOT/BOOTX64.EFI"));
  await copyFile(inputs.vmlinuz, join(esp, "vmlinuz"));
  await buildInitramfs(tree, join(esp, "initrd.img"), 0, join(dir, "bare.cpio"));
  await writeFile(join(esp, "loader/loader.conf"), loaderConf());
  await writeFile(
    join(esp, "loader/entries/bare.conf"),
    "title bare\nlinux /vmlinuz\ninitrd /initrd.img\noptions console=tty0 console=ttyS0,115200\n",
  );
  await buildFatImage(join(dir, "esp.img"), {
    size: 64 * MIB,
    label: "BARE",
    volumeId: "00000001",
    tree: esp,
    epoch: 0,
  });
  const image = join(dir, "bare.img");
  await buildGptImage(image, "00000000-0000-4000-8000-000000000001", [
    {
      name: "esp",
      typeGuid: PARTITION_TYPES.esp,
      uuid: "00000000-0000-4000-8000-000000000002",
      image: join(dir, "esp.img"),
    },
  ]);
  return image;
}

interface Stage {
  /** What the time up to this stage's line went to. */
  readonly name: string;
  readonly line: RegExp;
}

// Through the firmware's boot manager and systemd-boot to the kernel (the EFI stub's line
// comes once systemd-boot has read the kernel and the initrd), then to /init.
const FIRMWARE: readonly Stage[] = [
  { name: "firmware to the loader", line: /BdsDxe: starting/ },
  { name: "loader reads kernel + initrd", line: /EFI stub: / },
  { name: "kernel to /init", line: /Run \/init as init process/ },
];
const BARE: readonly Stage[] = [...FIRMWARE, { name: "/init to its line", line: /^bare up/ }];
const STICK: readonly Stage[] = [
  ...FIRMWARE,
  { name: "medium found, root verified", line: /liken-stick: payload .* verified/ },
  // Node.js and the menu start while the drivers load; the first screen waits for neither
  // the drivers nor the disks (it says "Reading the disks." until they are read).
  { name: "drivers (Node.js starts beside)", line: /liken-stick: drivers loaded/ },
  { name: "Node.js to the first screen", line: /Arrows or j\/k: move/ },
];
const INSTALLED: readonly Stage[] = [
  ...FIRMWARE,
  { name: "slot found, root verified", line: /liken: slot a verified by dm-verity/ },
  { name: "root's init to up", line: /^liken 1\.0\.0 slot a up$/ },
];

// A kernel message printed while an init writes its line splits that line on the serial
// console ("liken: slot a ve[    4.27] ata4: ...\nrified by dm-verity"): a stage's line is
// looked for in the console as it is and without the kernel's messages, every 50 ms.
const KERNEL_MESSAGE = /\[\s*\d+\.\d+\] [^\n]*\n/g;
const LOOK_MS = 50;
const STAGE_DEADLINE_MS = 180_000;

/** Seconds from QEMU's start to each stage's line. */
async function timeStages(
  stages: readonly Stage[],
  options: Parameters<typeof startVm>[0],
): Promise<number[]> {
  const t = performance.now();
  const vm = await startVm(options);
  const at: number[] = [];
  try {
    for (const stage of stages) {
      for (;;) {
        const text = vm.console();
        const lines = [...text.split("\n"), ...text.replace(KERNEL_MESSAGE, "").split("\n")];
        if (lines.some((l) => stage.line.test(l))) break;
        if (performance.now() - t > STAGE_DEADLINE_MS)
          throw new Error(
            `no ${stage.line} on the console within ${STAGE_DEADLINE_MS / 1000} s; its last lines:\n${text.split("\n").slice(-30).join("\n")}`,
          );
        await new Promise((r) => setTimeout(r, LOOK_MS));
      }
      at.push((performance.now() - t) / 1000);
    }
  } finally {
    await vm.stop();
  }
  return at;
}

/** The median run's total, and each stage's median share of it. */
function report(title: string, stages: readonly Stage[], runs: number[][], bare?: number): number {
  const total = median(runs.map((r) => r[r.length - 1] as number));
  const ratio = bare ? `   ratio ${(total / bare).toFixed(2)} (target <= 1.5)` : "";
  console.log(`${title}: ${total.toFixed(1)} s${ratio}`);
  stages.forEach((stage, i) => {
    const d = median(runs.map((r) => (r[i] as number) - (i === 0 ? 0 : (r[i - 1] as number))));
    console.log(
      `  ${stage.name.padEnd(32)} ${d.toFixed(1).padStart(5)} s  ${((d / total) * 100).toFixed(0).padStart(3)} %`,
    );
  });
  return total;
}

function median(xs: number[]): number {
  return xs.sort((a, b) => a - b)[Math.floor(xs.length / 2)] as number;
}

try {
  const release = await cachedRelease({ version: "1.0.0" });
  const stick = await cachedStick({
    manifest: new URL("../examples/cluster.toml", import.meta.url).pathname,
    releaseDir: release,
  });
  const installed = join(dir, "installed.img");
  await writeFile(installed, "");
  await truncate(installed, 4 * GIB);
  const small = new URL("../test/fixtures/manifests/good/small.toml", import.meta.url).pathname;
  const install = ["install", "--manifest", small, "--as", "leader-1", "--release", release];
  if ((await cli([...install, installed])).code !== 0) throw new Error("install failed");
  const bare = await bareImage();
  const disk = join(dir, "disk.img");
  await writeFile(disk, "");
  await truncate(disk, 8 * GIB);
  const runs = { bare: [] as number[][], stick: [] as number[][], installed: [] as number[][] };
  for (let i = 0; i < RUNS; i++) {
    runs.bare.push(await timeStages(BARE, { stick: bare, disks: [{ path: disk, bus: "virtio" }] }));
    runs.stick.push(await timeStages(STICK, { stick, disks: [{ path: disk, bus: "virtio" }] }));
    runs.installed.push(
      await timeStages(INSTALLED, { disks: [{ path: installed, bus: "virtio" }] }),
    );
  }
  console.log(`OVMF + systemd-boot + Debian kernel, TCG, ${RUNS} runs, medians`);
  const b = report("bare busybox initramfs to its first line", BARE, runs.bare);
  report("stick to its menu on the serial console", STICK, runs.stick, b);
  report('installed disk to "slot a up"', INSTALLED, runs.installed, b);
  console.log(`stick image: ${((await stat(stick)).size / MIB).toFixed(0)} MiB`);
} finally {
  await stopAllVms();
  await rm(dir, { recursive: true, force: true });
}
