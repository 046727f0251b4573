// `npm run vm -- [--stick FILE] [--disk SIZE[,BUS] | --disk FILE[,BUS]]... [--memory MIB]
// [--nics N] [--system-serial TEXT] [--accel tcg|kvm] [--arch amd64|arm64] [--keep]`
// (scripts/vm.ts), a developer's tool and not a verb of the stick's command, which has no
// QEMU: boots a stick and/or disks in QEMU with the serial console on this terminal, the way
// a person tries a stick before writing it, or looks at an installed disk. The machine looks
// like a server: onboard NICs the guest names eno1, eno2, ... and an SMBIOS serial, so the
// stick's hardware report finds the port a manifest declares (examples/cluster.toml's
// leader-1: eno1) and a serial to save the report under. `--arch arm64` boots an Arm
// server (QEMU's virt), and without a stick builds the example's arm64 one.
import { copyFile, mkdtemp, rm, stat, truncate, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { archOf, archOption } from "../cli/arch-option.ts";
import type { Io, Verb } from "../cli/verb.ts";
import { type Arch, archFacts, DEFAULT_ARCH } from "../common/arch.ts";
import { LikenError, usageError } from "../common/errors.ts";
import { createProgress } from "../common/progress.ts";
import { formatSize, GIB, MIB } from "../common/size.ts";
import { cachedRelease, cachedStick } from "./cached-build.ts";
import { writeArm64Example } from "./example-manifest-arm64.ts";
import {
  type Accel,
  chooseAccel,
  DEFAULT_MEMORY_MIB,
  type DiskBus,
  requireOvmf,
  startQemu,
  type VmDisk,
  type VmSpec,
} from "./qemu/index.ts";

const BUSES: readonly DiskBus[] = ["virtio", "nvme", "ahci"];
const UNITS = { K: 1, M: 2, G: 3, T: 4 } as const;

/** What one --disk asks for: a new blank disk of a size, or an existing image. */
export type DiskOption =
  | { readonly kind: "new"; readonly bytes: number; readonly bus: DiskBus }
  | { readonly kind: "file"; readonly path: string; readonly bus: DiskBus };

/** Reads `8G`, `8G,nvme`, `512M,ahci`, `disk.img`, `disk.img,nvme` (pure). */
export function parseDiskOption(text: string): DiskOption {
  const comma = text.lastIndexOf(",");
  const suffix = comma < 0 ? undefined : text.slice(comma + 1);
  let what = text;
  let bus: DiskBus = "virtio";
  if (suffix !== undefined) {
    if (!BUSES.includes(suffix as DiskBus)) {
      throw usageError(
        `--disk ${text}: unknown bus "${suffix}"`,
        `the bus is one of ${BUSES.join(", ")}, e.g. --disk 8G,nvme`,
      );
    }
    what = text.slice(0, comma);
    bus = suffix as DiskBus;
  }
  if (what === "") throw usageError(`--disk ${text}: no size or file`, "e.g. --disk 8G");
  const size = /^(\d+)([KMGT])(?:i?B)?$/i.exec(what);
  if (size) {
    const bytes = Number(size[1]) * 1024 ** UNITS[size[2]!.toUpperCase() as keyof typeof UNITS];
    if (bytes < MIB) throw usageError(`--disk ${text}: too small`, "give at least 1M");
    return { kind: "new", bytes, bus };
  }
  return { kind: "file", path: what, bus };
}

/** The SMBIOS system serial a VM gets unless --system-serial names another. */
export const DEFAULT_SYSTEM_SERIAL = "LIKEN-VM-0001";
const MAX_NICS = 8;

/**
 * `count` onboard NICs and the SMBIOS system serial (pure). Each NIC is virtio-net with
 * acpi-index N behind a PCIe root port of its own: QEMU 7.2 gives the index to a q35 guest
 * only there (testing/qemu/machine.ts, NicSpec), and udev then names the NIC enoN, as on a server's
 * first onboard ports (test/qemu/boot-ports.test.ts boots the same NIC and reads eno1).
 * virt gives a guest no acpi-index, so an arm64 VM's NICs have no onboard name: their
 * root ports are PCIe hotplug slots 64 and up, and udev names them ens64 and up (nicNames).
 */
export function serverParts(
  count: number,
  serial: string,
  arch: Arch = DEFAULT_ARCH,
): Pick<VmSpec, "nics" | "system"> {
  return {
    nics: Array.from({ length: count }, (_, i) =>
      arch === "arm64"
        ? { model: "virtio" as const, rootPort: true }
        : { model: "virtio" as const, acpiIndex: i + 1, rootPort: true },
    ),
    system: { serial },
  };
}

/** The names the guest gives serverParts()'s NICs (pure). */
export function nicNames(count: number, arch: Arch = DEFAULT_ARCH): string[] {
  return Array.from({ length: count }, (_, i) =>
    arch === "arm64" ? `ens${64 + i}` : `eno${i + 1}`,
  );
}

/** The blank disk the example's stick boots beside, as `npm start`'s (leader-1 needs 26 GiB). */
const EXAMPLE_DISK: DiskOption = { kind: "new", bytes: 32 * GIB, bus: "virtio" };

/** What a VM boots: the stick given, or the arm64 example's stick built first; then the disks. */
export interface VmMedia {
  readonly stick:
    | { readonly kind: "file"; readonly path: string }
    | { readonly kind: "arm64-example" }
    | undefined;
  readonly disks: readonly DiskOption[];
}

/**
 * What to boot from --stick and --disk (pure). With neither, amd64 has nothing to boot, and
 * arm64 boots the stick of examples/cluster.toml's machines as arm64 ones, with a blank
 * 32 GiB disk, as `npm start` boots amd64's: there is no arm64 `npm start`.
 */
export function planMedia(
  arch: Arch,
  stick: string | undefined,
  disks: readonly DiskOption[],
): VmMedia {
  if (stick !== undefined) return { stick: { kind: "file", path: stick }, disks };
  if (disks.length > 0) return { stick: undefined, disks };
  if (arch === "arm64") return { stick: { kind: "arm64-example" }, disks: [EXAMPLE_DISK] };
  throw usageError("nothing to boot", "give --stick FILE and/or --disk SIZE|FILE");
}

export const vmVerb: Verb = {
  words: ["vm"],
  operands: "",
  minOperands: 0,
  maxOperands: 0,
  summary: "boot a stick and/or disks in QEMU, the console on this terminal (a developer's tool)",
  description: `
A developer's tool, run from a checkout as npm run vm -- OPTIONS; the stick's
liken-stick has no vm.

Starts QEMU (q35, OVMF without Secure Boot unless --firmware says, 2 CPUs) with the guest's serial console
(ttyS0) on this terminal. The stick is a removable USB stick and boots first; the
disks follow in the order given. Quit with Ctrl-A then X; Ctrl-A then C switches
to the QEMU monitor and back.

--disk SIZE[,BUS] adds a new blank disk, a sparse file (8G, 512M,nvme, 1T,ahci);
--disk FILE[,BUS] attaches an existing image or block device. BUS is virtio (the
default), nvme or ahci. The stick image is never changed (the VM's writes to it
are thrown away); disk images are written. Each VM gets its own copy of the OVMF
variables; --keep keeps it and the new disks in a folder it names.

The machine has one onboard NIC, virtio-net on QEMU's user network, which the
guest names eno1 (--nics N: eno1 to enoN; --nics 0: none), and the SMBIOS system
serial ${DEFAULT_SYSTEM_SERIAL} (--system-serial TEXT names another).

--firmware setup-mode boots OVMF's Secure Boot build with no keys enrolled, where a
stick built with image --sign enrolls the cluster's keys; --firmware microsoft
boots it with Microsoft's and Debian's keys, as machines ship (SMM on, the
variables writable only from SMM, as on a server).

Acceleration is TCG unless a probe boots OVMF under KVM to its first console line
(on many hosts /dev/kvm exists and guests still fail). --accel, or LIKEN_ACCEL=tcg|kvm
in the environment, decides instead. The exit code is QEMU's.

--arch arm64 boots an Arm server instead: QEMU's virt under AAVMF (Debian's
qemu-efi-aarch64) and TCG on this host, the console on ttyAMA0 (the PL011). virt
gives no onboard NIC names: the NICs sit in PCIe hotplug slots and are ens64 and
up. Without --stick and --disk it builds release 1.0.0 for arm64 and a stick from
examples/cluster.toml with arch = "arm64" on every machine and leader-1's port as
ens64 (written to ~/.cache/liken-stick/examples/cluster-arm64.toml; both builds
cached after the first time), and boots it with a blank 32G disk, as npm start
boots amd64's.`,
  options: [
    { name: "stick", type: "string", value: "FILE", summary: "the stick image (boots first)" },
    {
      name: "disk",
      type: "string",
      multiple: true,
      value: "SIZE|FILE[,BUS]",
      summary: "a new blank disk or an existing image; repeatable",
    },
    {
      name: "memory",
      type: "string",
      value: "MIB",
      summary: `memory in MiB (${DEFAULT_MEMORY_MIB})`,
    },
    {
      name: "accel",
      type: "string",
      value: "tcg|kvm",
      summary: "the accelerator (TCG unless KVM boots OVMF here)",
    },
    {
      name: "firmware",
      type: "string",
      value: "plain|setup-mode|microsoft",
      summary: "OVMF without Secure Boot (plain), or with it: no keys, or Microsoft's",
    },
    {
      name: "nics",
      type: "string",
      value: "N",
      summary: "onboard NICs, named eno1 to enoN in the guest; 0 for none (1)",
    },
    {
      name: "system-serial",
      type: "string",
      value: "TEXT",
      summary: `the machine's SMBIOS system serial (${DEFAULT_SYSTEM_SERIAL})`,
    },
    archOption("the machine: amd64 (q35, OVMF; the default) or arm64 (virt, AAVMF, TCG)"),
    { name: "keep", type: "boolean", summary: "keep the VM's folder (variables, new disks)" },
  ],
  async run(args, io) {
    const arch = archOf(args.options) ?? DEFAULT_ARCH;
    const media = planMedia(
      arch,
      typeof args.options.stick === "string" ? args.options.stick : undefined,
      ((args.options.disk as readonly string[] | undefined) ?? []).map(parseDiskOption),
    );
    const diskOptions = media.disks;
    const memoryMiB = parseMemory(args.options.memory);
    const nics = parseNics(args.options.nics);
    const systemSerial = parseSystemSerial(args.options["system-serial"]);
    const wantedAccel = parseAccel(args.options.accel);
    if (media.stick?.kind === "file") await requireImage(media.stick.path, "--stick");
    for (const d of diskOptions) if (d.kind === "file") await requireImage(d.path, "--disk");
    const kind = args.options.firmware ?? "plain";
    if (kind !== "plain" && kind !== "setup-mode" && kind !== "microsoft")
      throw usageError(
        `--firmware ${String(kind)}: not a firmware`,
        "use plain, setup-mode or microsoft",
      );
    const firmware = await requireOvmf(undefined, kind, arch).catch((error: Error) => {
      throw new LikenError({
        kind: "failed",
        what: error.message.replace(/; install.*$/, ""),
        hint: `install the Debian package ${arch === "arm64" ? "qemu-efi-aarch64" : "ovmf"}`,
      });
    });
    const choice = await chooseAccel(wantedAccel, arch).catch((error: Error) => {
      throw new LikenError({
        kind: "failed",
        what: error.message.replace(/ \(.*\)$/, ""),
        hint:
          arch === "arm64"
            ? "leave --accel out: arm64 runs under TCG on this host"
            : "set LIKEN_ACCEL to tcg or kvm, or unset it",
      });
    });
    const accel = choice.accel;
    const stick =
      media.stick?.kind === "arm64-example" ? await buildArm64ExampleStick(io) : media.stick?.path;

    const scratch = await mkdtemp(join(tmpdir(), "liken-vm-"));
    try {
      const vars = join(scratch, arch === "arm64" ? "AAVMF_VARS.fd" : "OVMF_VARS.fd");
      await copyFile(firmware.varsTemplate, vars);
      const disks: VmDisk[] = [];
      for (const [i, d] of diskOptions.entries()) {
        if (d.kind === "file") {
          disks.push({ path: resolve(d.path), bus: d.bus });
          io.err(`liken-stick vm: disk ${i + 1} on ${d.bus}: ${d.path}\n`);
          continue;
        }
        const path = join(scratch, `disk${i + 1}.img`);
        await writeFile(path, "");
        await truncate(path, d.bytes);
        disks.push({ path, bus: d.bus });
        io.err(`liken-stick vm: disk ${i + 1} on ${d.bus}: new, blank, ${formatSize(d.bytes)}\n`);
      }
      const kvm = accel === "kvm" ? "KVM" : "TCG";
      io.err(
        `liken-stick vm: QEMU ${arch === "arm64" ? "virt (arm64)" : "q35"}, ${kvm} (${choice.why}), ${memoryMiB} MiB, firmware ${kind}${stick ? `, stick ${stick} (USB, first to boot)` : ""}\n`,
      );
      const ports = nicNames(nics, arch).join(", ") || "none";
      io.err(`liken-stick vm: NICs ${ports} (virtio-net); SMBIOS serial ${systemSerial}\n`);
      io.err(
        `liken-stick vm: the serial console${arch === "arm64" ? ` (${archFacts(arch).serialConsole})` : ""} follows; Ctrl-A X quits, Ctrl-A C is the monitor\n`,
      );
      const qemu = await startQemu(
        {
          ...(arch === "arm64" ? { arch } : {}),
          accel,
          firmware: { code: firmware.code, vars, smm: firmware.smm },
          ...(stick ? { stick: resolve(stick) } : {}),
          disks,
          memoryMiB,
          ...serverParts(nics, systemSerial, arch),
          serial: { kind: "stdio" },
        },
        { stdin: "inherit", stdout: "inherit", stderr: "inherit" },
      );
      const exit = await qemu.exited;
      if (exit.signal !== undefined) io.err(`liken-stick vm: QEMU was killed by ${exit.signal}\n`);
      return exit.exitCode ?? 1;
    } finally {
      if (args.options.keep) io.err(`liken-stick vm: kept ${scratch}\n`);
      else await rm(scratch, { recursive: true, force: true });
    }
  },
};

/** Release 1.0.0 for arm64 and the arm64 example's stick, from the build cache when there. */
async function buildArm64ExampleStick(io: Io): Promise<string> {
  const manifest = await writeArm64Example();
  io.err(
    `liken-stick vm: release 1.0.0 for arm64 and the stick of ${manifest} (cached after the first time)\n`,
  );
  // Each build says what it does and how much is left, with a bar on a terminal.
  const progress = (what: string) =>
    createProgress(`liken-stick vm: ${what}`, {
      write: (text) => io.err(text),
      ...(process.stderr.isTTY ? { columns: process.stderr.columns || 80 } : {}),
    });
  const releaseProgress = progress("release 1.0.0 (arm64)");
  const release = await cachedRelease({ version: "1.0.0", arch: "arm64" }, releaseProgress);
  releaseProgress.end();
  const stickProgress = progress("the arm64 stick");
  const stick = await cachedStick({ manifest, releaseDir: release }, stickProgress);
  stickProgress.end();
  return stick;
}

function parseAccel(value: unknown): Accel | undefined {
  if (value === undefined) return undefined;
  if (value !== "tcg" && value !== "kvm") {
    throw usageError(
      `--accel ${String(value)}: not an accelerator`,
      "give --accel tcg or --accel kvm",
    );
  }
  return value;
}

function parseNics(value: unknown): number {
  if (value === undefined) return 1;
  const text = String(value);
  if (!/^\d+$/.test(text) || Number(text) > MAX_NICS)
    throw usageError(`--nics ${text}: not a number from 0 to ${MAX_NICS}`, "e.g. --nics 2");
  return Number(text);
}

// SMBIOS strings are printable; a comma is fine (qemuArgs doubles it for QEMU's syntax).
function parseSystemSerial(value: unknown): string {
  if (value === undefined) return DEFAULT_SYSTEM_SERIAL;
  const text = String(value);
  if (!/^[\x21-\x7e][\x20-\x7e]{0,63}$/.test(text))
    throw usageError(
      `--system-serial ${JSON.stringify(text)}: not 1 to 64 printable ASCII characters`,
      "e.g. --system-serial LIKEN-VM-0002",
    );
  return text;
}

function parseMemory(value: unknown): number {
  if (value === undefined) return DEFAULT_MEMORY_MIB;
  const text = String(value);
  if (!/^\d+$/.test(text) || Number(text) < 256) {
    throw usageError(`--memory ${text}: not a number of MiB from 256 up`, "e.g. --memory 4096");
  }
  return Number(text);
}

async function requireImage(path: string, option: string): Promise<void> {
  const s = await stat(path).catch(() => undefined);
  if (!s) throw usageError(`${option} ${path}: no such file`, "give an image file or a size");
  if (!s.isFile() && !s.isBlockDevice()) {
    throw usageError(`${option} ${path}: not an image file or block device`, "give an image file");
  }
}
