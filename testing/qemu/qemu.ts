// qemu-system-x86_64: the virtual machines of the QEMU tests (test/qemu/) and of
// `liken-stick vm`. A VM is described by a VmSpec value; qemuArgs() turns it into the
// command line (pure, unit-tested) and startQemu() runs it through tools/exec.ts.
//
// Host facts (research/image-qemu.md, research/proven-on-debian12.md): QEMU 7.2, OVMF
// 2022.11; KVM fails on these machines, so TCG is the default and KVM is used only when
// probeKvm() has booted OVMF with it (or LIKEN_ACCEL / `vm --accel` says so).
import { constants } from "node:fs";
import { access, copyFile, mkdtemp, readdir, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type ProcessExit, type StartedProcess, type StartOptions, start } from "./exec.ts";

export const QEMU = "qemu-system-x86_64";

/**
 * Where a disk hangs: virtio-blk, NVMe, AHCI (SATA), or a SCSI disk behind virtio-scsi, an
 * LSI MegaRAID SAS 2108 (`megasas-gen2`: the megaraid_sas of Dell's PERC and its kin) or
 * an LSI SAS1068 HBA (`mptsas1068`: mptsas). OVMF boots from the first three and
 * virtio-scsi; it has no driver for QEMU's LSI controllers (docs/install.md).
 */
export type DiskBus = "virtio" | "nvme" | "ahci" | "virtio-scsi" | "megasas" | "mptsas";

/** The QEMU device of each SCSI controller bus, one controller per bus a machine uses. */
const SCSI_CONTROLLERS: Readonly<Partial<Record<DiskBus, string>>> = {
  "virtio-scsi": "virtio-scsi-pci",
  megasas: "megasas-gen2",
  mptsas: "mptsas1068",
};
/**
 * A NIC model, each on QEMU's user network: virtio-net, Intel's e1000e (82574L), or a USB
 * Ethernet adapter (QEMU's usb-net, CDC Ethernet and RNDIS) in a port of the xHCI controller.
 */
export type NicModel = "virtio" | "e1000e" | "usb";

/**
 * A NIC with its place on the machine, for tests of interface names and links. Every NIC,
 * plain or not, has the QOM id `nic<i>` (its index in VmSpec.nics), which QMP `set_link`
 * takes.
 */
export interface NicSpec {
  readonly model: NicModel;
  /**
   * QEMU's acpi-index: the firmware's index of an onboard NIC (ACPI _DSM), which the guest
   * reads as acpi_index and udev turns into eno<N>. QEMU 7.2 gives it to the guest only on a
   * bus with ACPI PCI hotplug: pc's root bus, or behind a q35 pcie-root-port (rootPort), not
   * on q35's root bus (hardware/fixtures/net-names/ has both machines' captures).
   */
  readonly acpiIndex?: number;
  /** Behind a PCIe root port of its own (q35), as an add-in card in a server's slot is. */
  readonly rootPort?: boolean;
  /** The PCI address on its bus, QEMU's `addr` (slot.function in hex: "0x10.1"). */
  readonly addr?: string;
  /** Set the multi-function bit (function 0 of a slot whose other functions follow). */
  readonly multifunction?: boolean;
  /** The NIC's MAC address (QEMU's default is 52:54:00:12:34:56 and up). */
  readonly mac?: string;
  /**
   * The link at power-on ("up", the default). qemuArgs() cannot say it; the QEMU test
   * harness applies "down" through QMP `set_link` as soon as QEMU answers, while OVMF runs.
   */
  readonly link?: "up" | "down";
  /**
   * A host tap device instead of QEMU's user network: QEMU creates `ifname` and runs
   * `script` with its name before the guest starts (the netboot tests move it into a
   * network namespace of their own there).
   */
  readonly tap?: { readonly ifname: string; readonly script: string };
  /** Boot from this NIC (PXE, HTTP boot) at this place in the boot order: the stick is 1, disks 2 and up. */
  readonly bootindex?: number;
  /**
   * Without QEMU's option ROM (an iPXE that answers the firmware's network boot itself):
   * OVMF's own NIC driver and PXE client boot it, as a server's firmware does.
   */
  readonly noOptionRom?: boolean;
}

/** A NIC as VmSpec takes it: a plain model, or a model with its place and link. */
export type VmNic = NicModel | NicSpec;

/** The QOM id of NIC `index` (QMP `set_link`'s name). */
export function nicId(index: number): string {
  return `nic${index}`;
}

/** `nic` as a NicSpec. */
export function nicSpec(nic: VmNic): NicSpec {
  return typeof nic === "string" ? { model: nic } : nic;
}
export type Accel = "tcg" | "kvm";

export interface VmDisk {
  /** A raw image file (or block device). */
  readonly path: string;
  readonly bus: DiskBus;
  /** The serial the guest sees (/dev/disk/by-id); NVMe needs one, so it gets `nvme<N>`. */
  readonly serial?: string;
  /** The WWN a SCSI or SATA disk reports (VPD page 0x83), e.g. 0x5000c50015ea71ac. */
  readonly wwn?: string;
  /** Logical and physical block sizes: 4096 and 4096 is a 4Kn drive, 512 and 4096 a 512e one. */
  readonly logicalBlockSize?: 512 | 4096;
  readonly physicalBlockSize?: 512 | 4096;
  /**
   * This disk is `path` reached a second time (a dual-ported SAS drive on a second HBA):
   * the same image through the same bus's next controller, with the same serial and WWN.
   */
  readonly secondPath?: boolean;
  /**
   * Behind a PCIe root port of its own (virtio and NVMe), as a server's NVMe slot is, rather
   * than on the root complex: the guest binds the built-in pcieport driver to the port.
   */
  readonly rootPort?: boolean;
  /**
   * Reads and writes limited to this many bytes a second (QEMU's block throttling): a disk
   * that answers slower than the probe's budget, as a failing drive that retries or virtual
   * media over a slow link does.
   */
  readonly bytesPerSecond?: number;
}

/** Where the guest's first serial port (ttyS0) goes. */
export type SerialSpec =
  /** Output only, to a file. */
  | { readonly kind: "file"; readonly path: string }
  /**
   * A unix socket QEMU listens on: output to read and keys to type. With `wait` (the
   * default) the guest does not start before a client connects, so no output is lost.
   * `log` also appends everything the guest prints to a file.
   */
  | {
      readonly kind: "socket";
      readonly path: string;
      readonly log?: string;
      readonly wait?: boolean;
    }
  /** A person's terminal, multiplexed with the QEMU monitor: Ctrl-A X quits, Ctrl-A C monitor. */
  | { readonly kind: "stdio" };

export interface VmFirmware {
  /** OVMF's code, attached read-only. */
  readonly code: string;
  /** This VM's own writable copy of the variable store (never the template itself). */
  readonly vars: string;
  /**
   * A Secure Boot build: its variable store is writable only from SMM, as on a server, so
   * nothing but the firmware's authenticated-variable code can change the keys.
   */
  readonly smm?: boolean;
}

export interface VmSpec {
  /**
   * q35 (PCIe, ICH9 with its TCO watchdog), the default: what servers look like. pc (i440fx,
   * PIIX) for a machine with no chipset watchdog at all.
   */
  readonly machine?: "q35" | "pc";
  readonly memoryMiB?: number;
  readonly cpus?: number;
  readonly accel?: Accel;
  readonly firmware: VmFirmware;
  /** A stick image attached as a removable USB mass-storage device, first in the boot order. */
  readonly stick?: string;
  /** Let the guest write the stick image itself (by default its writes go to a throwaway overlay). */
  readonly stickWritable?: boolean;
  /**
   * An ISO in a CD drive on its own AHCI controller, first in the boot order (a stick
   * too: the stick first): a BMC's virtual media or a real drive, both read-only.
   */
  readonly cdrom?: string;
  /** Disks in boot order, after the stick. */
  readonly disks?: readonly VmDisk[];
  /** Network ports, none by default; each on its own user-mode network (no host setup). */
  readonly nics?: readonly VmNic[];
  readonly serial: SerialSpec;
  /** A unix socket for QMP (tools/qmp.ts). */
  readonly qmpSocket?: string;
  /** Exit when the guest reboots (a supervisor relaunches it, and can swap media in between). */
  readonly noReboot?: boolean;
  /**
   * A watchdog card that resets the machine when it expires: QEMU's i6300esb (PCI, the
   * default), ib700 (ISA, nothing to find it by), or none. On q35 the chipset's TCO watchdog
   * is there as well, as on an Intel board.
   */
  readonly watchdog?: "i6300esb" | "ib700" | "none";
  /** isa-debug-exit at port 0xf4: a guest write of V makes QEMU exit with (V << 1) | 1. */
  readonly debugExit?: boolean;
  /**
   * The SMBIOS system (type 1) serial and UUID, as a server's firmware gives them; QEMU's
   * own are empty and all zeros.
   */
  readonly system?: { readonly serial?: string; readonly uuid?: string };
}

export const DEFAULT_MEMORY_MIB = 2048;
export const DEFAULT_CPUS = 2;
/** The QOM id of the stick's usb-storage device, for QMP `device_del`. */
export const STICK_DEVICE_ID = "stick0";
/** ICH9 AHCI has six ports. */
const AHCI_PORTS = 6;

// Without ERMS and FSRM ("fast" rep movsb/stosb): TCG runs a rep string instruction one
// element per step, and with ERMS the kernel zeroes every page it hands out (Debian's
// init_on_alloc) a byte per step with rep stosb, and glibc copies and fills with rep movsb
// and stosb. Measured with the kernel's profile=4 from the stick's boot to its menu:
// clear_page_erms was 16 % of the kernel's time to /init and 31 % of the root's time to
// the menu; with rep stosq (these flags off) 5 and 14 % (docs/image.md, Speed). The guest
// runs the code a server without these flags runs; only the emulator's speed differs.
const TCG_CPU = "max,erms=off,fsrm=off";

/**
 * The command line for `spec`, without the program name. A pure function of its input.
 *
 * Boot order: every boot device gets a `bootindex`, the stick 1 and the disks 2, 3, ... in
 * the order given. OVMF rebuilds `BootOrder` from QEMU's fw_cfg "bootorder" list on every
 * boot (tianocore/edk2#8197, #8712; qemu.org/docs/master/system/bootindex.html), so the
 * order holds whatever a guest wrote into the variables. Checked here with QEMU 7.2 and
 * OVMF 2022.11 (docs/image.md): with bootindex reversed
 * (stick 3, virtio 2, NVMe 1) OVMF tries NVMe, virtio, then the stick; and a device
 * WITHOUT a bootindex is not tried at all once any device has one (only the EFI shell is
 * left after them), which is why every disk gets one. research/ab-boot.md suggests no
 * bootindex so that guest-written BootOrder survives; liken never depends on BootOrder
 * (it ships EFI/BOOT/BOOTX64.EFI), so a fixed firmware order is the better trade.
 */
export function qemuArgs(spec: VmSpec): string[] {
  const accel = spec.accel ?? "tcg";
  const args: string[] = [
    ...["-machine", `${spec.machine ?? "q35"}${spec.firmware.smm ? ",smm=on" : ""}`],
    ...["-accel", accel],
    // TCG's default CPU (qemu64) lacks SSE4.2 and POPCNT, which V8 and the kernel like to
    // see; "max" is everything TCG can emulate (mkosi does the same).
    ...["-cpu", accel === "kvm" ? "host" : TCG_CPU],
    ...["-smp", String(spec.cpus ?? DEFAULT_CPUS)],
    ...["-m", String(spec.memoryMiB ?? DEFAULT_MEMORY_MIB)],
    // No default NIC, VGA, floppy, CD-ROM, serial port or monitor: only what is named here.
    "-nodefaults",
    "-display",
    "none",
    ...["-drive", `if=pflash,format=raw,unit=0,readonly=on,file=${qemuValue(spec.firmware.code)}`],
    ...["-drive", `if=pflash,format=raw,unit=1,file=${qemuValue(spec.firmware.vars)}`],
    ...serialArgs(spec.serial),
  ];
  // The flash answers only to SMM (QEMU docs/system/i386/..., OVMF's README: "-global
  // driver=cfi.pflash01,property=secure,value=on").
  if (spec.firmware.smm) args.push("-global", "driver=cfi.pflash01,property=secure,value=on");
  if (spec.system) {
    const fields = [
      ...(spec.system.serial ? [`serial=${qemuValue(spec.system.serial)}`] : []),
      ...(spec.system.uuid ? [`uuid=${spec.system.uuid}`] : []),
    ];
    if (fields.length > 0) args.push("-smbios", `type=1,${fields.join(",")}`);
  }
  if (spec.qmpSocket) args.push("-qmp", `unix:${qemuValue(spec.qmpSocket)},server=on,wait=off`);
  // A guest reboot ends QEMU (SHUTDOWN event, reason "guest-reset"); so does a QMP
  // system_reset or a watchdog reset while this is set.
  if (spec.noReboot) args.push("-no-reboot");
  // The chipset's TCO watchdog (iTCO_wdt, as on Intel servers) resets the machine when it
  // expires, as a board's firmware leaves it; QEMU 7.2 straps it off by default.
  if ((spec.machine ?? "q35") === "q35") args.push("-global", "ICH9-LPC.noreboot=false");
  const watchdog = spec.watchdog ?? "i6300esb";
  if (watchdog !== "none") args.push("-device", watchdog);
  // `-action watchdog=reset` is the 6.0+ spelling of `-watchdog-action reset` (both in 7.2).
  args.push("-action", "watchdog=reset");
  if (spec.debugExit) args.push("-device", "isa-debug-exit,iobase=0xf4,iosize=0x04");
  // A machine has USB ports whether or not a stick is in one.
  args.push("-device", "qemu-xhci,id=xhci");
  if (spec.stick) {
    // snapshot=on: the guest's writes (systemd-boot's random seed) go to a temporary
    // overlay, so one stick image serves many VMs and stays byte-identical.
    const snapshot = spec.stickWritable ? "" : ",snapshot=on";
    args.push(
      ...["-drive", `if=none,id=stick,format=raw,file=${qemuValue(spec.stick)}${snapshot}`],
      "-device",
      `usb-storage,bus=xhci.0,drive=stick,id=${STICK_DEVICE_ID},removable=on,bootindex=1`,
    );
  }
  if (spec.cdrom) {
    args.push(
      ...[
        "-drive",
        `if=none,id=cd0,format=raw,media=cdrom,readonly=on,file=${qemuValue(spec.cdrom)}`,
      ],
      ...["-device", "ahci,id=cdahci"],
      ...["-device", "ide-cd,bus=cdahci.0,drive=cd0,id=cd0-dev,bootindex=1"],
    );
  }
  const disks = spec.disks ?? [];
  const ahciDisks = disks.filter((d) => d.bus === "ahci").length;
  if (ahciDisks > AHCI_PORTS) {
    throw new Error(`${ahciDisks} AHCI disks asked for, the controller has ${AHCI_PORTS} ports`);
  }
  if (ahciDisks > 0) args.push("-device", "ahci,id=ahci0");
  // One controller per SCSI bus, and a second for a disk's second path.
  const controllers = new Set<string>();
  const scsiController = (bus: DiskBus, second: boolean): string => {
    const id = `${bus}${second ? 1 : 0}`;
    if (!controllers.has(id)) {
      controllers.add(id);
      args.push("-device", `${SCSI_CONTROLLERS[bus]},id=${id}`);
    }
    return id;
  };
  let ahciPort = 0;
  disks.forEach((disk, i) => {
    const id = `disk${i}`;
    const bootindex = `bootindex=${i + 2}`;
    // cache=unsafe: no host fsync for a throwaway VM (data still reaches the file if QEMU
    // is killed); discard=unmap: a guest's discard punches holes, so images stay sparse.
    // A second path shares the image: QEMU's write lock would refuse the second opening.
    const lock = disk.secondPath || disks.some((d) => d.secondPath && d.path === disk.path);
    args.push(
      "-drive",
      `if=none,id=${id},format=raw,file=${qemuValue(disk.path)},cache=unsafe,discard=unmap${lock ? ",file.locking=off" : ""}${disk.bytesPerSecond ? `,throttling.bps-total=${disk.bytesPerSecond}` : ""}`,
    );
    const serial = disk.serial ?? (disk.bus === "nvme" ? `nvme${i}` : undefined);
    const serialOpt =
      (serial === undefined ? "" : `,serial=${qemuValue(serial)}`) +
      (disk.wwn === undefined ? "" : `,wwn=${disk.wwn}`) +
      (disk.logicalBlockSize ? `,logical_block_size=${disk.logicalBlockSize}` : "") +
      (disk.physicalBlockSize ? `,physical_block_size=${disk.physicalBlockSize}` : "");
    let port = "";
    if (disk.rootPort && disk.bus !== "ahci") {
      args.push("-device", `pcie-root-port,id=${id}-port,chassis=${i + 1},slot=${i + 1}`);
      port = `,bus=${id}-port`;
    }
    if (disk.bus === "virtio") {
      args.push(
        "-device",
        `virtio-blk-pci,drive=${id},id=${id}-dev${serialOpt}${port},${bootindex}`,
      );
    } else if (disk.bus === "nvme") {
      args.push("-device", `nvme,drive=${id},id=${id}-dev${serialOpt}${port},${bootindex}`);
    } else if (SCSI_CONTROLLERS[disk.bus]) {
      const controller = scsiController(disk.bus, disk.secondPath === true);
      args.push(
        "-device",
        `scsi-hd,bus=${controller}.0,drive=${id},id=${id}-dev${serialOpt},${bootindex}`,
      );
    } else {
      const bus = `ahci0.${ahciPort++}`;
      args.push("-device", `ide-hd,bus=${bus},drive=${id},id=${id}-dev${serialOpt},${bootindex}`);
    }
  });
  (spec.nics ?? []).forEach((nic, i) => {
    const { model, acpiIndex, rootPort, addr, multifunction, mac, tap, bootindex, noOptionRom } =
      nicSpec(nic);
    const macOption = mac ? `,mac=${mac}` : "";
    const id = nicId(i);
    const netdev = tap
      ? `tap,id=net${i},ifname=${qemuValue(tap.ifname)},script=${qemuValue(tap.script)},downscript=no`
      : `user,id=net${i}`;
    if (model === "usb") {
      if (acpiIndex !== undefined || rootPort || addr !== undefined || multifunction) {
        throw new Error(`${id} is a USB NIC: it has no PCI place (acpiIndex, rootPort, addr)`);
      }
      args.push(
        "-netdev",
        netdev,
        "-device",
        `usb-net,bus=xhci.0,netdev=net${i},id=${id}${macOption}`,
      );
      return;
    }
    const device = model === "virtio" ? "virtio-net-pci" : "e1000e";
    let options = "";
    if (rootPort) {
      // Chassis and slot numbers from 64 up, apart from the disks' root ports (1, 2, ...).
      args.push("-device", `pcie-root-port,id=${id}-port,chassis=${64 + i},slot=${64 + i}`);
      options += `,bus=${id}-port`;
    }
    if (addr !== undefined) options += `,addr=${addr}`;
    if (multifunction) options += ",multifunction=on";
    if (acpiIndex !== undefined) options += `,acpi-index=${acpiIndex}`;
    options += macOption;
    if (bootindex !== undefined) options += `,bootindex=${bootindex}`;
    if (noOptionRom) options += ",romfile=";
    args.push("-netdev", netdev, "-device", `${device},netdev=net${i},id=${id}${options}`);
  });
  return args;
}

function serialArgs(serial: SerialSpec): string[] {
  const chardev = (() => {
    switch (serial.kind) {
      case "file":
        return `file,id=serial0,path=${qemuValue(serial.path)}`;
      case "socket": {
        const wait = (serial.wait ?? true) ? "on" : "off";
        const log = serial.log ? `,logfile=${qemuValue(serial.log)},logappend=on` : "";
        return `socket,id=serial0,path=${qemuValue(serial.path)},server=on,wait=${wait}${log}`;
      }
      case "stdio":
        // `-serial mon:stdio` spelled out, with signal=off: Ctrl-C goes to the guest
        // instead of killing QEMU; Ctrl-A X quits.
        return "stdio,id=serial0,mux=on,signal=off";
    }
  })();
  const args = ["-chardev", chardev, "-serial", "chardev:serial0"];
  if (serial.kind === "stdio") args.push("-mon", "chardev=serial0,mode=readline");
  return args;
}

// QEMU's option syntax: a comma inside a value is written twice.
function qemuValue(value: string): string {
  return value.replaceAll(",", ",,");
}

/** Starts QEMU for `spec`; stop it with kill() or QMP `quit`. */
export function startQemu(spec: VmSpec, options: StartOptions = {}): Promise<StartedProcess> {
  return start(QEMU, qemuArgs(spec), options);
}

// --- Firmware ---

export const FIRMWARE_DESCRIPTORS = "/usr/share/qemu/firmware";

/** OVMF as found through QEMU's firmware descriptors (docs/interop/firmware.json). */
export interface Ovmf {
  readonly code: string;
  /** The template each VM copies for its own variables. */
  readonly varsTemplate: string;
  readonly descriptor: string;
  /** A Secure Boot build, which needs SMM. */
  readonly smm: boolean;
  /** The descriptors passed over, and why. */
  readonly skipped: readonly { readonly descriptor: string; readonly reason: string }[];
}

interface Descriptor {
  "interface-types"?: string[];
  mapping?: {
    device?: string;
    executable?: { filename?: string; format?: string };
    "nvram-template"?: { filename?: string; format?: string };
  };
  targets?: { architecture?: string; machines?: string[] }[];
  features?: string[];
}

/**
 * Which OVMF build: `plain` (no Secure Boot), `setup-mode` (Secure Boot, no keys enrolled:
 * what a machine whose keys were cleared looks like, where liken's stick enrolls its own),
 * `microsoft` (Secure Boot on with Microsoft's and the distribution's keys, as shipped).
 */
export type OvmfKind = "plain" | "setup-mode" | "microsoft";

const SECURE = ["secure-boot", "requires-smm"];
const FEATURES: Readonly<Record<OvmfKind, { need: string[]; refuse: string[] }>> = {
  plain: { need: [], refuse: [...SECURE, "enrolled-keys"] },
  "setup-mode": { need: SECURE, refuse: ["enrolled-keys"] },
  microsoft: { need: [...SECURE, "enrolled-keys"], refuse: [] },
};

/**
 * Why descriptor `d` does not fit a q35 x86_64 VM of `kind`, or undefined when it fits.
 * Pure: the file checks come after.
 */
export function ovmfMismatch(d: Descriptor, kind: OvmfKind = "plain"): string | undefined {
  if (!d["interface-types"]?.includes("uefi")) return "not UEFI";
  const q35 = d.targets?.some(
    (t) => t.architecture === "x86_64" && (t.machines ?? []).some((m) => m.startsWith("pc-q35")),
  );
  if (!q35) return "not for x86_64 q35 machines";
  if (d.mapping?.device !== "flash")
    return `mapped as ${d.mapping?.device ?? "nothing"}, not flash`;
  const features = d.features ?? [];
  const unwanted = features.filter((f) => FEATURES[kind].refuse.includes(f));
  if (unwanted.length > 0) return `has ${unwanted.join(", ")} (not ${kind})`;
  const lacking = FEATURES[kind].need.filter((f) => !features.includes(f));
  if (lacking.length > 0) return `lacks ${lacking.join(", ")} (not ${kind})`;
  if (d.mapping.executable?.format !== "raw" || !d.mapping.executable.filename) {
    return "its code is not a raw file";
  }
  if (d.mapping["nvram-template"]?.format !== "raw" || !d.mapping["nvram-template"].filename) {
    return "no raw variable store template";
  }
  return undefined;
}

/**
 * OVMF for q35 without Secure Boot, from QEMU's firmware descriptors in priority order
 * (file name order; on Debian 12 that is 60-edk2-x86_64.json, after skipping the two
 * Secure Boot ones). Throws with every reason when none fits.
 */
export async function requireOvmf(
  dir = FIRMWARE_DESCRIPTORS,
  kind: OvmfKind = "plain",
): Promise<Ovmf> {
  const names = (await readdir(dir).catch(() => [] as string[]))
    .filter((n) => n.endsWith(".json"))
    .sort();
  const skipped: { descriptor: string; reason: string }[] = [];
  for (const name of names) {
    const descriptor = join(dir, name);
    let d: Descriptor;
    try {
      d = JSON.parse(await readFile(descriptor, "utf8")) as Descriptor;
    } catch (error) {
      skipped.push({ descriptor, reason: `unreadable: ${(error as Error).message}` });
      continue;
    }
    const mismatch = ovmfMismatch(d, kind);
    if (mismatch) {
      skipped.push({ descriptor, reason: mismatch });
      continue;
    }
    const code = d.mapping?.executable?.filename ?? "";
    const varsTemplate = d.mapping?.["nvram-template"]?.filename ?? "";
    const missing: string[] = [];
    for (const file of [code, varsTemplate]) {
      if (!(await isReadable(file))) missing.push(file);
    }
    if (missing.length > 0) {
      skipped.push({ descriptor, reason: `cannot read ${missing.join(", ")}` });
      continue;
    }
    return { code, varsTemplate, descriptor, skipped, smm: kind !== "plain" };
  }
  const why = skipped.map((s) => `${s.descriptor}: ${s.reason}`).join("; ");
  throw new Error(
    `no OVMF firmware for q35 (${kind}) in ${dir}${why ? ` (${why})` : ""}; install the Debian package ovmf`,
  );
}

async function isReadable(path: string): Promise<boolean> {
  return access(path, constants.R_OK).then(
    () => true,
    () => false,
  );
}

// --- Acceleration ---

/** Where the acceleration choice comes from: a person's flag, LIKEN_ACCEL, or the probe. */
export interface AccelChoice {
  readonly accel: Accel;
  /** Why, in a few words a person reads ("LIKEN_ACCEL=tcg", "KVM probe: ..."). */
  readonly why: string;
}

export const ACCEL_ENV = "LIKEN_ACCEL";

/**
 * The accelerator to run VMs with: `wanted` (a person's `--accel`), else $LIKEN_ACCEL, else
 * KVM only when probeKvm() has booted OVMF with it, else TCG. A bad LIKEN_ACCEL throws.
 */
export async function chooseAccel(wanted?: Accel): Promise<AccelChoice> {
  if (wanted) return { accel: wanted, why: "asked for" };
  const env = process.env[ACCEL_ENV];
  if (env !== undefined && env !== "") {
    if (env !== "tcg" && env !== "kvm") {
      throw new Error(
        `${ACCEL_ENV}=${env} is not an accelerator (set it to tcg or kvm, or unset it)`,
      );
    }
    return { accel: env, why: `${ACCEL_ENV}=${env}` };
  }
  const probe = await probeKvm();
  return { accel: probe.ok ? "kvm" : "tcg", why: `KVM probe: ${probe.detail}` };
}

/** What the KVM probe saw. */
export interface ProbeResult {
  readonly ok: boolean;
  readonly detail: string;
}

let kvmProbe: Promise<ProbeResult> | undefined;

/**
 * Whether KVM runs what the tests run. /dev/kvm existing is not enough, nor is guest code
 * in real mode: on these machines a real-mode probe passes, and then OVMF stops once it
 * runs in 32- or 64-bit mode ("KVM internal error. Suberror: 1", QEMU pauses the guest and
 * the console stays empty), or QEMU aborts on `-cpu host` ("failed to set MSR"). So the
 * probe boots OVMF itself, with the CPU model the VMs use, to its first console line.
 * Remembered for the process.
 */
export function probeKvm(): Promise<ProbeResult> {
  kvmProbe ??= runProbe("kvm");
  return kvmProbe;
}

// OVMF prints this when its boot manager starts: the firmware ran through SEC, PEI and DXE
// (long mode, SSE) on the accelerator. About 5 s under TCG, well under 1 s under KVM.
const PROBE_LINE = "BdsDxe:";
const PROBE_TIMEOUT_MS = 20_000;
const PROBE_POLL_MS = 100;
// What QEMU prints when KVM cannot run the guest (accel/kvm/kvm-all.c, target/i386/kvm).
const KVM_FAILURE = /KVM internal error|failed to set MSR|kvm_.*Assertion|Could not access KVM/;

/** Boots OVMF with `accel` until its first console line. Exported for the tests. */
export async function runProbe(accel: Accel): Promise<ProbeResult> {
  const started = Date.now();
  let firmware: Ovmf;
  try {
    firmware = await requireOvmf();
  } catch (error) {
    return { ok: false, detail: (error as Error).message };
  }
  const dir = await mkdtemp(join(tmpdir(), "liken-accel-probe-"));
  const console = join(dir, "serial.log");
  const vars = join(dir, "OVMF_VARS.fd");
  let qemu: StartedProcess | undefined;
  try {
    await copyFile(firmware.varsTemplate, vars);
    await writeFile(console, "");
    qemu = await startQemu({
      accel,
      memoryMiB: 256,
      cpus: 1,
      firmware: { code: firmware.code, vars },
      serial: { kind: "file", path: console },
      watchdog: "none",
    });
    let stderr = "";
    qemu.stderr?.on("data", (chunk: string) => {
      stderr += chunk;
    });
    let exited: ProcessExit | Error | undefined;
    void qemu.exited.then(
      (exit) => {
        exited = exit;
      },
      (error: Error) => {
        exited = error;
      },
    );
    const seconds = () => ((Date.now() - started) / 1000).toFixed(1);
    for (;;) {
      if ((await readFile(console, "utf8")).includes(PROBE_LINE)) {
        return { ok: true, detail: `OVMF reached its boot manager in ${seconds()} s` };
      }
      const failure = stderrLine(stderr, KVM_FAILURE);
      if (failure) return { ok: false, detail: failure };
      if (exited) {
        const why = exited instanceof Error ? exited.message : stderrLine(exited.stderrTail, /./);
        return {
          ok: false,
          detail: `QEMU exited before OVMF printed anything${why ? `: ${why}` : ""}`,
        };
      }
      if (Date.now() - started > PROBE_TIMEOUT_MS) {
        return { ok: false, detail: `OVMF printed nothing within ${PROBE_TIMEOUT_MS / 1000} s` };
      }
      await new Promise((resolve) => setTimeout(resolve, PROBE_POLL_MS));
    }
  } finally {
    qemu?.kill("SIGKILL");
    await qemu?.exited.catch(() => {});
    await rm(dir, { recursive: true, force: true });
  }
}

/** The first line of `text` that matches `pattern`, trimmed, or undefined. */
export function stderrLine(text: string, pattern: RegExp): string | undefined {
  return text
    .split("\n")
    .map((l) => l.trim())
    .find((l) => l !== "" && pattern.test(l));
}

/** Whether QEMU's stderr says KVM failed the guest: the line that says so. */
export function findKvmFailure(stderr: string): string | undefined {
  return stderrLine(stderr, KVM_FAILURE);
}
