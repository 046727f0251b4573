// What the boot-path QEMU tests share: a disk freshly installed with release 1.0.0 (the
// installer run on the host, the same code the stick runs), update media (a GPT disk with
// one ext4 partition labelled LIKEN-UPDATE holding spec.toml and the release), and reading
// the disk back with `inspect --json`.
import { copyFile, mkdir, readdir, rm, stat, truncate, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { buildGptImage } from "../../image-build/gpt-image.ts";
import type { OvmfKind, VmDisk, VmNic } from "../../testing/qemu/index.ts";
import { makeExt4 } from "../../tools/mkfs.ts";
import { cli } from "../cli.ts";
import { sparseFile } from "../disk-files.ts";
import { startVm, type Vm } from "./harness.ts";

export const MANIFEST = "test/fixtures/manifests/good/small.toml";
const MIB = 1024 * 1024;
const LINUX_DATA = "0FC63DAF-8483-4772-8E79-3D69D8477DE4";

/** A blank 4 GiB disk with leader-1 installed from `release`, as `install` leaves it. */
export async function installedDisk(
  dir: string,
  release: string,
  manifest = MANIFEST,
  options: { sectorSize?: 512 | 4096; name?: string } = {},
): Promise<string> {
  const disk = await sparseFile(join(dir, options.name ?? "disk.img"), 4 * 1024 * MIB);
  const result = await cli([
    "install",
    "--manifest",
    manifest,
    "--as",
    "leader-1",
    "--release",
    release,
    ...(options.sectorSize ? ["--sector-size", String(options.sectorSize)] : []),
    "--status-file",
    join(dir, "install-status.json"),
    disk,
  ]);
  if (result.code !== 0) throw new Error(`install failed: ${result.stderr}`);
  return disk;
}

/**
 * An update medium: spec.toml naming `version`, with the release under releases/<version>/.
 * The spec approves the trial (`reboot = "now"`) unless `approve` is false: the machines
 * installed from the test manifest have the default reboot policy, Manual. `name` tells apart
 * the files of two media naming one version (medium-<version> by default).
 */
export async function updateMedium(
  dir: string,
  version: string,
  release: string | null,
  options: { approve?: boolean; specExtra?: string; name?: string } = {},
): Promise<string> {
  const name = options.name ?? `medium-${version}`;
  const tree = join(dir, name);
  await rm(tree, { recursive: true, force: true });
  await mkdir(tree, { recursive: true });
  let spec = `version = "${version}"\n`;
  if (options.approve ?? true) spec += `reboot = "now"\n`;
  if (release) {
    spec += `source = "releases/${version}"\n`;
    await mkdir(join(tree, "releases", version), { recursive: true });
    for (const name of await readdir(release))
      await copyFile(join(release, name), join(tree, "releases", version, name));
  }
  await writeFile(join(tree, "spec.toml"), spec + (options.specExtra ?? ""));
  let bytes = 0;
  if (release)
    for (const name of await readdir(release)) bytes += (await stat(join(release, name))).size;
  const fs = join(dir, `${name}.ext4`);
  await rm(fs, { force: true });
  await writeFile(fs, "");
  await truncate(fs, Math.ceil((bytes * 1.2 + 16 * MIB) / MIB) * MIB);
  await makeExt4(fs, {
    label: "LIKEN-UPDATE",
    uuid: "4c494b45-4e55-5044-4154-450000000001",
    fromDir: tree,
    epoch: 1700000000,
  });
  const image = join(dir, `${name}.img`);
  await buildGptImage(image, "4C494B45-4E55-5044-4154-450000000000", [
    {
      name: "LIKEN-UPDATE",
      typeGuid: LINUX_DATA,
      uuid: "4C494B45-4E55-5044-4154-450000000002",
      image: fs,
    },
  ]);
  await rm(fs, { force: true });
  await rm(tree, { recursive: true, force: true });
  return image;
}

/** The installed disk first in the boot order, an update medium (or none) behind it; QEMU starts again after each reboot. */
export function bootMachine(
  disk: string,
  options: {
    medium?: string;
    varsFrom?: string;
    expectPanic?: boolean;
    watchdog?: "i6300esb" | "ib700" | "none";
    machine?: "q35" | "pc";
    nics?: readonly VmNic[];
    firmware?: OvmfKind;
    /** The disk's bus and block sizes (virtio with 512-byte blocks by default). */
    as?: Omit<VmDisk, "path">;
  } = {},
): Promise<Vm> {
  const { medium, as, ...rest } = options;
  return startVm({
    disks: [
      { bus: "virtio", ...as, path: disk },
      ...(medium ? [{ path: medium, bus: "virtio" as const }] : []),
    ],
    relaunchOnReboot: true,
    ...rest,
  });
}

/**
 * The end of every failed trial of an update from 1.0.0: the machine boots 1.0.0 in slot A
 * by itself, records the rejection of `version` with `reason`, and comes up; then it stops.
 */
export async function returnsToProven(
  vm: Vm,
  version: string,
  reason: string,
  ms = 180_000,
): Promise<void> {
  await vm.waitFor(/^liken: booting 1\.0\.0 from slot a$/, ms);
  await vm.waitFor(`liken: release ${version} was rejected (${reason})`, ms);
  await vm.waitFor(/^liken 1\.0\.0 slot a up$/, ms);
  await vm.stop();
}

export interface Condition {
  readonly type: string;
  readonly status: string;
  readonly reason: string;
  readonly message: string;
}

export interface Inspected {
  readonly status: {
    readonly phase: string;
    readonly version: string;
    readonly slot: string;
    readonly conditions: readonly Condition[];
    readonly boot: {
      readonly slot: string;
      readonly version: string;
      readonly trial: boolean;
      readonly systemRejection: {
        readonly version: string;
        readonly slot: string;
        readonly reason: string;
        readonly attempts: number;
        readonly message: string;
      } | null;
      readonly root: { readonly partUuid: string; readonly verity: boolean };
      readonly watchdog: string | null;
      readonly secureBoot: string | null;
    };
    readonly modules: readonly {
      readonly name: string;
      readonly parameters: Readonly<Record<string, string>>;
    }[];
    readonly lastCrash: {
      readonly release: string;
      readonly slot: string;
      readonly lines: readonly string[];
    } | null;
  };
  readonly claim: {
    readonly installId: string;
    readonly mirror?: {
      readonly member: 1 | 2;
      readonly of: 2;
      readonly peer: { readonly serial?: string; readonly wwn?: string; readonly path?: string };
    };
  } | null;
  readonly slots: Record<"a" | "b", { version: string | null; hashMatches: boolean | null }>;
  readonly partitions: readonly {
    readonly label: string;
    readonly partUuid: string;
    readonly start: number;
    readonly size: number;
    readonly encrypted?: true;
  }[];
  readonly entries: readonly { fileName: string; triesLeft: number | null }[];
  readonly crashes: readonly { release: string | null; lines: readonly string[] }[];
}

export async function inspect(disk: string): Promise<Inspected> {
  const result = await cli(["inspect", "--json", disk]);
  if (result.code !== 0) throw new Error(`inspect failed: ${result.stderr}`);
  return JSON.parse(result.stdout) as Inspected;
}

export function condition(inspected: Inspected, type: string): Condition | undefined {
  return inspected.status.conditions.find((c) => c.type === type);
}
