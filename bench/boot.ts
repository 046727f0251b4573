// Times the stick from QEMU's start to its menu on the serial console, and an installed
// disk to its `liken 1.0.0 slot a up` (the boot agent done), against a bare kernel + busybox
// initramfs booted through the same OVMF and systemd-boot, in the same run, and prints the
// ratios (docs/design.md section 10: at most 1.5), each stage's share (from the time each
// stage's console line arrives) and the stick's size. The same for arm64, beside it: QEMU's
// virt under AAVMF and systemd-bootaa64, the arm64 stick and installed disk against the
// pinned arm64 kernel with the same busybox /init, each run of amd64's followed by arm64's.
// Run: npm run bench:boot
import { copyFile, mkdir, mkdtemp, rm, stat, truncate, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type Arch, archFacts } from "../common/arch.ts";
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
import { writeArm64Example } from "../testing/example-manifest-arm64.ts";

// Five: the machine's speed varies from boot to boot, and the median of five moves less.
const RUNS = 5;
// test/cli.ts runs the test bundle, which only the test run builds otherwise.
await bundleTestCommand();
const dir = await mkdtemp(join(tmpdir(), "liken-bench-boot-"));

/** The arch's pinned kernel and busybox, as its loader boots them from an ESP. */
async function bareImage(arch: Arch): Promise<string> {
  const inputs = await requireUnpackedInputs(undefined, arch);
  const { serialConsole, removableLoader } = archFacts(arch);
  const at = join(dir, arch);
  const tree = join(at, "tree");
  await mkdir(join(tree, "bin"), { recursive: true });
  await copyFile(inputs.busybox, join(tree, "bin/busybox"));
  await writeFile(
    join(tree, "init"),
    `#!/bin/busybox sh\n/bin/busybox mount -t devtmpfs d /dev\necho 'bare up' > /dev/${serialConsole}\nexec /bin/busybox sleep 3600\n`,
    { mode: 0o755 },
  );
  const esp = join(at, "esp");
  await mkdir(join(esp, "EFI/BOOT"), { recursive: true });
  await mkdir(join(esp, "loader/entries"), { recursive: true });
  await copyFile(inputs.systemdBoot, join(esp, removableLoader));
  await copyFile(inputs.vmlinuz, join(esp, "vmlinuz"));
  await buildInitramfs(tree, join(esp, "initrd.img"), 0, join(at, "bare.cpio"));
  await writeFile(join(esp, "loader/loader.conf"), loaderConf());
  await writeFile(
    join(esp, "loader/entries/bare.conf"),
    `title bare\nlinux /vmlinuz\ninitrd /initrd.img\noptions console=tty0 console=${serialConsole},115200\n`,
  );
  await buildFatImage(join(at, "esp.img"), {
    size: 64 * MIB,
    label: "BARE",
    volumeId: "00000001",
    tree: esp,
    epoch: 0,
  });
  const image = join(at, "bare.img");
  await buildGptImage(image, "00000000-0000-4000-8000-000000000001", [
    {
      name: "esp",
      typeGuid: PARTITION_TYPES.esp,
      uuid: "00000000-0000-4000-8000-000000000002",
      image: join(at, "esp.img"),
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
// arm64 is emulated instruction by instruction on this x86-64 host, and takes longer.
const STAGE_DEADLINE_MS: Readonly<Record<Arch, number>> = { amd64: 180_000, arm64: 400_000 };

/** Seconds from QEMU's start to each stage's line. */
async function timeStages(
  stages: readonly Stage[],
  options: Parameters<typeof startVm>[0],
): Promise<number[]> {
  const t = performance.now();
  const deadline = STAGE_DEADLINE_MS[options?.arch ?? "amd64"];
  const vm = await startVm(options);
  const at: number[] = [];
  try {
    for (const stage of stages) {
      for (;;) {
        const text = vm.console();
        const lines = [...text.split("\n"), ...text.replace(KERNEL_MESSAGE, "").split("\n")];
        if (lines.some((l) => stage.line.test(l))) break;
        if (performance.now() - t > deadline)
          throw new Error(
            `no ${stage.line} on the console within ${deadline / 1000} s; its last lines:\n${text.split("\n").slice(-30).join("\n")}`,
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

/** One arch's images: the bare boot, the stick, an installed disk, a blank disk. */
interface Images {
  readonly arch: Arch;
  readonly bare: string;
  readonly stick: string;
  readonly installed: string;
  readonly blank: string;
}

// The stick of examples/cluster.toml (its machines as arm64 ones for arm64: the stick
// `npm run vm -- --arch arm64` boots), and leader-1 of the small test manifest installed.
async function images(arch: Arch): Promise<Images> {
  const release = await cachedRelease({ version: "1.0.0", ...(arch === "arm64" ? { arch } : {}) });
  const example = new URL("../examples/cluster.toml", import.meta.url).pathname;
  const stick = await cachedStick({
    manifest: arch === "arm64" ? await writeArm64Example() : example,
    releaseDir: release,
  });
  const installed = join(dir, arch, "installed.img");
  await mkdir(join(dir, arch), { recursive: true });
  await writeFile(installed, "");
  await truncate(installed, 4 * GIB);
  const smallName = arch === "arm64" ? "small-arm64.toml" : "small.toml";
  const small = new URL(`../test/fixtures/manifests/good/${smallName}`, import.meta.url).pathname;
  const install = ["install", "--manifest", small, "--as", "leader-1", "--release", release];
  const done = await cli([...install, installed]);
  if (done.code !== 0) throw new Error(`the ${arch} install failed: ${done.stderr}`);
  const bare = await bareImage(arch);
  const blank = join(dir, arch, "disk.img");
  await writeFile(blank, "");
  await truncate(blank, 8 * GIB);
  return { arch, bare, stick, installed, blank };
}

interface Runs {
  readonly bare: number[][];
  readonly stick: number[][];
  readonly installed: number[][];
}

async function runOnce(at: Images, runs: Runs): Promise<void> {
  const arch = at.arch === "arm64" ? { arch: at.arch } : {};
  const blank = [{ path: at.blank, bus: "virtio" as const }];
  runs.bare.push(await timeStages(BARE, { ...arch, stick: at.bare, disks: blank }));
  runs.stick.push(await timeStages(STICK, { ...arch, stick: at.stick, disks: blank }));
  runs.installed.push(
    await timeStages(INSTALLED, { ...arch, disks: [{ path: at.installed, bus: "virtio" }] }),
  );
}

/** One arch's tables; the stick's and the installed disk's ratios. */
async function reportArch(title: string, at: Images, runs: Runs): Promise<[number, number]> {
  console.log(`${title}, TCG, ${RUNS} runs, medians`);
  const b = report("bare busybox initramfs to its first line", BARE, runs.bare);
  const s = report("stick to its menu on the serial console", STICK, runs.stick, b);
  const i = report('installed disk to "slot a up"', INSTALLED, runs.installed, b);
  console.log(`stick image: ${((await stat(at.stick)).size / MIB).toFixed(0)} MiB`);
  return [s / b, i / b];
}

try {
  const amd64 = await images("amd64");
  const arm64 = await images("arm64");
  const runs = {
    amd64: { bare: [], stick: [], installed: [] } as Runs,
    arm64: { bare: [], stick: [], installed: [] } as Runs,
  };
  // Each run boots both arches one after the other, so a slow hour of the machine weighs
  // on both alike.
  for (let i = 0; i < RUNS; i++) {
    await runOnce(amd64, runs.amd64);
    await runOnce(arm64, runs.arm64);
    // Each run's totals as it ends: a bench of half an hour shows how far it is.
    const totals = (r: Runs) =>
      [r.bare, r.stick, r.installed].map((t) => `${t[i]?.at(-1)?.toFixed(1)} s`).join(", ");
    process.stderr.write(
      `bench:boot: run ${i + 1}/${RUNS}: bare, stick, installed: x86-64 ${totals(runs.amd64)}; arm64 ${totals(runs.arm64)}\n`,
    );
  }
  const x86 = await reportArch("OVMF + systemd-boot + Debian kernel", amd64, runs.amd64);
  console.log("");
  const arm = await reportArch(
    "arm64: QEMU virt, AAVMF + systemd-bootaa64 + Debian arm64 kernel",
    arm64,
    runs.arm64,
  );
  console.log("");
  console.log("ratio against the bare boot   x86-64   arm64   (target <= 1.5)");
  console.log(
    `stick to its menu             ${x86[0].toFixed(2).padStart(6)}  ${arm[0].toFixed(2).padStart(6)}`,
  );
  console.log(
    `installed disk to "up"        ${x86[1].toFixed(2).padStart(6)}  ${arm[1].toFixed(2).padStart(6)}`,
  );
} finally {
  await stopAllVms();
  await rm(dir, { recursive: true, force: true });
}
