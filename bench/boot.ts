// Times the stick from QEMU's start to its menu on the serial console, and an installed
// disk to its `liken 1.0.0 slot a up` (the boot agent done), against a bare kernel + busybox
// initramfs booted through the same OVMF and systemd-boot, in the same run, and prints the
// ratios (docs/design.md section 10: at most 1.5) and the stick's size.
// Run: npm run bench:boot
import { copyFile, mkdir, mkdtemp, rm, stat, truncate, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { GIB, MIB } from "../common/size.ts";
import { loaderConf } from "../formats/boot-entries.ts";
import { PARTITION_TYPES } from "../formats/gpt-types.ts";
import { cachedRelease, cachedStick } from "../image-build/cached-build.ts";
import { buildFatImage } from "../image-build/fat-image.ts";
import { buildGptImage } from "../image-build/gpt-image.ts";
import { buildInitramfs } from "../image-build/initramfs.ts";
import { requireUnpackedInputs } from "../image-build/unpacked.ts";
import { bundleTestCommand, cli } from "../test/cli.ts";
import { startVm, stopAllVms } from "../test/qemu/harness.ts";

const RUNS = 3;
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

async function timeTo(pattern: RegExp, options: Parameters<typeof startVm>[0]): Promise<number> {
  const t = performance.now();
  const vm = await startVm(options);
  await vm.waitFor(pattern, 180_000);
  const seconds = (performance.now() - t) / 1000;
  await vm.stop();
  return seconds;
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
  const stickTimes: number[] = [];
  const bareTimes: number[] = [];
  const installedTimes: number[] = [];
  for (let i = 0; i < RUNS; i++) {
    bareTimes.push(
      await timeTo(/^bare up/, { stick: bare, disks: [{ path: disk, bus: "virtio" }] }),
    );
    stickTimes.push(
      await timeTo(/Arrows or j\/k: move/, { stick, disks: [{ path: disk, bus: "virtio" }] }),
    );
    installedTimes.push(
      await timeTo(/^liken 1\.0\.0 slot a up$/, { disks: [{ path: installed, bus: "virtio" }] }),
    );
  }
  const [s, b] = [median(stickTimes), median(bareTimes)];
  console.log(`OVMF + systemd-boot + Debian kernel, TCG, ${RUNS} runs, medians`);
  console.log(`bare busybox initramfs to its first line: ${b.toFixed(1)} s`);
  console.log(
    `stick to its menu on the serial console:  ${s.toFixed(1)} s   ratio ${(s / b).toFixed(2)} (target <= 1.5)`,
  );
  const i = median(installedTimes);
  console.log(
    `installed disk to "slot a up":            ${i.toFixed(1)} s   ratio ${(i / b).toFixed(2)} (target <= 1.5)`,
  );
  console.log(`stick image: ${((await stat(stick)).size / MIB).toFixed(0)} MiB`);
} finally {
  await stopAllVms();
  await rm(dir, { recursive: true, force: true });
}
