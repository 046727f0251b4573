// QEMU's command line for a VmSpec (machine.ts): qemu-system-x86_64's q35 for amd64,
// qemu-system-aarch64's virt for arm64 (board.ts). qemuArgs() is pure and unit-tested,
// startQemu() runs it through tools/exec.ts.
//
// Host facts (research/image-qemu.md, research/proven-on-debian12.md): QEMU 7.2, OVMF and
// AAVMF 2022.11.
import { type StartedProcess, type StartOptions, start } from "../../tools/exec.ts";
import { boardOf, refusedOnVirt } from "./board.ts";
import {
  DEFAULT_CPUS,
  DEFAULT_MEMORY_MIB,
  type DirectKernelBoot,
  type DiskBus,
  type NicSpec,
  nicId,
  nicSpec,
  type SerialSpec,
  STICK_DEVICE_ID,
  type VmDisk,
  type VmFirmware,
  type VmSpec,
} from "./machine.ts";

/** The amd64 QEMU program; boardOf(spec).qemu is a spec's own. */
export const QEMU = boardOf({}).qemu;

/** The QEMU device of each SCSI controller bus, one controller per bus a machine uses. */
const SCSI_CONTROLLERS: Readonly<Partial<Record<DiskBus, string>>> = {
  "virtio-scsi": "virtio-scsi-pci",
  megasas: "megasas-gen2",
  mptsas: "mptsas1068",
};
/** ICH9 AHCI has six ports. */
const AHCI_PORTS = 6;

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
  const refused = refusedOnVirt(spec);
  if (refused) throw new Error(refused);
  return [
    ...boardArgs(spec),
    ...flashArgs(spec),
    ...kernelArgs(spec.kernel),
    ...serialArgs(spec.serial),
    ...smmFlashArgs(spec.firmware),
    ...smbiosArgs(spec.system),
    ...controlArgs(spec),
    ...watchdogArgs(spec),
    ...removableMediaArgs(spec),
    ...diskArgs(spec.disks ?? []),
    ...(spec.nics ?? []).flatMap((nic, i) => nicArgs(nicSpec(nic), i)),
  ];
}

/** Starts QEMU for `spec`; stop it with kill() or QMP `quit`. */
export function startQemu(spec: VmSpec, options: StartOptions = {}): Promise<StartedProcess> {
  return start(boardOf(spec).qemu, qemuArgs(spec), options);
}

function boardArgs(spec: VmSpec): string[] {
  const accel = spec.accel ?? "tcg";
  // virt as an Arm server (SBSA, SBBR) is: ACPI, so AAVMF hands the guest ACPI tables and
  // the kernel finds the PL011, the PCIe host and the TPM in them; a GICv3 with its ITS for
  // MSIs (QEMU's default on virt is a GICv2, which SBSA does not allow). Same boot time.
  const machine =
    spec.arch === "arm64"
      ? "virt,acpi=on,gic-version=3"
      : `${spec.machine ?? "q35"}${spec.firmware?.smm ? ",smm=on" : ""}`;
  return [
    ...["-machine", machine],
    ...["-accel", accel],
    // TCG's default CPUs lack what the guest's code likes to see (qemu64: SSE4.2 and
    // POPCNT, which V8 and the kernel use); "max" is everything TCG can emulate (mkosi does
    // the same), with the flags board.ts gives.
    ...["-cpu", accel === "kvm" ? "host" : boardOf(spec).tcgCpu],
    ...["-smp", String(spec.cpus ?? DEFAULT_CPUS)],
    ...["-m", String(spec.memoryMiB ?? DEFAULT_MEMORY_MIB)],
    // No default NIC, VGA, floppy, CD-ROM, serial port or monitor: only what is named here.
    "-nodefaults",
    "-display",
    "none",
  ];
}

function flashArgs(spec: VmSpec): string[] {
  const firmware = spec.firmware;
  if (!firmware) {
    if (!spec.kernel)
      throw new Error("a VM boots OVMF (firmware) or a kernel (kernel): it has neither");
    // SeaBIOS, QEMU's default, loads the kernel: no flash.
    return [];
  }
  return [
    ...["-drive", `if=pflash,format=raw,unit=0,readonly=on,file=${qemuValue(firmware.code)}`],
    ...["-drive", `if=pflash,format=raw,unit=1,file=${qemuValue(firmware.vars)}`],
  ];
}

function kernelArgs(kernel: DirectKernelBoot | undefined): string[] {
  if (!kernel) return [];
  return [
    ...["-kernel", kernel.kernel],
    ...["-initrd", kernel.initrd],
    ...["-append", kernel.append],
  ];
}

// The flash answers only to SMM (QEMU docs/system/i386/..., OVMF's README: "-global
// driver=cfi.pflash01,property=secure,value=on").
function smmFlashArgs(firmware: VmFirmware | undefined): string[] {
  return firmware?.smm ? ["-global", "driver=cfi.pflash01,property=secure,value=on"] : [];
}

function smbiosArgs(system: VmSpec["system"]): string[] {
  const fields = [
    ...(system?.serial ? [`serial=${qemuValue(system.serial)}`] : []),
    ...(system?.uuid ? [`uuid=${system.uuid}`] : []),
  ];
  return fields.length > 0 ? ["-smbios", `type=1,${fields.join(",")}`] : [];
}

function controlArgs(spec: VmSpec): string[] {
  return [
    ...(spec.qmpSocket ? ["-qmp", `unix:${qemuValue(spec.qmpSocket)},server=on,wait=off`] : []),
    // A guest reboot ends QEMU (SHUTDOWN event, reason "guest-reset"); so does a QMP
    // system_reset or a watchdog reset while this is set.
    ...(spec.noReboot ? ["-no-reboot"] : []),
  ];
}

function watchdogArgs(spec: VmSpec): string[] {
  const watchdog = spec.watchdog ?? "i6300esb";
  return [
    // The chipset's TCO watchdog (iTCO_wdt, as on Intel servers) resets the machine when it
    // expires, as a board's firmware leaves it; QEMU 7.2 straps it off by default.
    ...(spec.arch !== "arm64" && (spec.machine ?? "q35") === "q35"
      ? ["-global", "ICH9-LPC.noreboot=false"]
      : []),
    ...(watchdog !== "none" ? ["-device", watchdog] : []),
    // `-action watchdog=reset` is the 6.0+ spelling of `-watchdog-action reset` (both in 7.2).
    ...["-action", "watchdog=reset"],
    ...(spec.debugExit ? ["-device", "isa-debug-exit,iobase=0xf4,iosize=0x04"] : []),
    ...tpmArgs(spec),
  ];
}

// QEMU's TPM passthrough to swtpm: the emulator backend speaks swtpm's control protocol.
function tpmArgs(spec: VmSpec): string[] {
  if (!spec.tpmSocket) return [];
  return [
    ...["-chardev", `socket,id=tpmchr,path=${qemuValue(spec.tpmSocket)}`],
    ...["-tpmdev", "emulator,id=tpm0,chardev=tpmchr"],
    ...["-device", `${boardOf(spec).tpmDevice},tpmdev=tpm0`],
  ];
}

// A machine has USB ports whether or not a stick is in one.
function removableMediaArgs(spec: VmSpec): string[] {
  const args = ["-device", "qemu-xhci,id=xhci"];
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
  if (spec.cdrom && spec.arch === "arm64") {
    // AAVMF has no AHCI driver: a CD on virtio-scsi, which it boots from.
    args.push(
      ...cdDriveArgs(spec.cdrom),
      ...["-device", "virtio-scsi-pci,id=cdscsi"],
      ...["-device", "scsi-cd,bus=cdscsi.0,drive=cd0,id=cd0-dev,bootindex=1"],
    );
  } else if (spec.cdrom) {
    args.push(
      ...cdDriveArgs(spec.cdrom),
      ...["-device", "ahci,id=cdahci"],
      ...["-device", "ide-cd,bus=cdahci.0,drive=cd0,id=cd0-dev,bootindex=1"],
    );
  }
  return args;
}

function cdDriveArgs(iso: string): string[] {
  return ["-drive", `if=none,id=cd0,format=raw,media=cdrom,readonly=on,file=${qemuValue(iso)}`];
}

/** The controllers the disks have so far: one per SCSI bus (and path), and AHCI's next port. */
interface DiskPlaces {
  readonly scsiControllers: Set<string>;
  ahciPort: number;
}

function diskArgs(disks: readonly VmDisk[]): string[] {
  const ahciDisks = disks.filter((d) => d.bus === "ahci").length;
  if (ahciDisks > AHCI_PORTS) {
    throw new Error(`${ahciDisks} AHCI disks asked for, the controller has ${AHCI_PORTS} ports`);
  }
  const places: DiskPlaces = { scsiControllers: new Set(), ahciPort: 0 };
  return [
    ...(ahciDisks > 0 ? ["-device", "ahci,id=ahci0"] : []),
    ...disks.flatMap((disk, i) => [
      ...driveArgs(disk, i, disks),
      ...diskDeviceArgs(disk, i, places),
    ]),
  ];
}

function driveArgs(disk: VmDisk, i: number, disks: readonly VmDisk[]): string[] {
  // cache=unsafe: no host fsync for a throwaway VM (data still reaches the file if QEMU
  // is killed); discard=unmap: a guest's discard punches holes, so images stay sparse.
  // A second path shares the image: QEMU's write lock would refuse the second opening.
  const lock = disk.secondPath || disks.some((d) => d.secondPath && d.path === disk.path);
  // Named nodes, which QMP blockdev-reopen takes (QEMU's generated names it refuses): a
  // test puts a fault-injecting filter under a running disk (test/qemu/disk-faults.ts).
  return [
    "-drive",
    `if=none,id=disk${i},format=raw,file=${qemuValue(disk.path)},cache=unsafe,discard=unmap${lock ? ",file.locking=off" : ""}${disk.bytesPerSecond ? `,throttling.bps-total=${disk.bytesPerSecond}` : ""},node-name=${diskNode(i, "format")},file.node-name=${diskNode(i, "file")}`,
  ];
}

/** The QEMU block node of disk `i`: its raw format node, or the file node under it. */
export function diskNode(i: number, layer: "format" | "file"): string {
  return `disk${i}-${layer}`;
}

function diskDeviceArgs(disk: VmDisk, i: number, places: DiskPlaces): string[] {
  const id = `disk${i}`;
  const own = `drive=${id},id=${id}-dev${diskIdentityOptions(disk, i)}`;
  const bootindex = `bootindex=${i + 2}`;
  const args: string[] = [];
  let port = "";
  if (disk.rootPort && disk.bus !== "ahci") {
    args.push("-device", `pcie-root-port,id=${id}-port,chassis=${i + 1},slot=${i + 1}`);
    port = `,bus=${id}-port`;
  }
  if (disk.bus === "virtio") {
    args.push("-device", `virtio-blk-pci,${own}${port},${bootindex}`);
  } else if (disk.bus === "nvme") {
    args.push("-device", `nvme,${own}${port},${bootindex}`);
  } else if (SCSI_CONTROLLERS[disk.bus]) {
    const controller = `${disk.bus}${disk.secondPath ? 1 : 0}`;
    if (!places.scsiControllers.has(controller)) {
      places.scsiControllers.add(controller);
      args.push("-device", `${SCSI_CONTROLLERS[disk.bus]},id=${controller}`);
    }
    args.push("-device", `scsi-hd,bus=${controller}.0,${own},${bootindex}`);
  } else {
    args.push("-device", `ide-hd,bus=ahci0.${places.ahciPort++},${own},${bootindex}`);
  }
  return args;
}

/** What the guest reads of a disk: its serial (NVMe needs one), WWN and block sizes. */
function diskIdentityOptions(disk: VmDisk, i: number): string {
  const serial = disk.serial ?? (disk.bus === "nvme" ? `nvme${i}` : undefined);
  return (
    (serial === undefined ? "" : `,serial=${qemuValue(serial)}`) +
    (disk.wwn === undefined ? "" : `,wwn=${disk.wwn}`) +
    (disk.logicalBlockSize ? `,logical_block_size=${disk.logicalBlockSize}` : "") +
    (disk.physicalBlockSize ? `,physical_block_size=${disk.physicalBlockSize}` : "")
  );
}

function nicArgs(nic: NicSpec, i: number): string[] {
  const id = nicId(i);
  const netdev = netdevOf(nic, i);
  const macOption = nic.mac ? `,mac=${nic.mac}` : "";
  if (nic.model === "usb") {
    if (
      nic.acpiIndex !== undefined ||
      nic.rootPort ||
      nic.addr !== undefined ||
      nic.multifunction
    ) {
      throw new Error(`${id} is a USB NIC: it has no PCI place (acpiIndex, rootPort, addr)`);
    }
    return ["-netdev", netdev, "-device", `usb-net,bus=xhci.0,netdev=net${i},id=${id}${macOption}`];
  }
  const device = nic.model === "virtio" ? "virtio-net-pci" : "e1000e";
  // Chassis and slot numbers from 64 up, apart from the disks' root ports (1, 2, ...).
  const port = nic.rootPort
    ? ["-device", `pcie-root-port,id=${id}-port,chassis=${64 + i},slot=${64 + i}`]
    : [];
  const options =
    (nic.rootPort ? `,bus=${id}-port` : "") +
    (nic.addr !== undefined ? `,addr=${nic.addr}` : "") +
    (nic.multifunction ? ",multifunction=on" : "") +
    (nic.acpiIndex !== undefined ? `,acpi-index=${nic.acpiIndex}` : "") +
    macOption +
    speedOptions(nic, id) +
    (nic.bootindex !== undefined ? `,bootindex=${nic.bootindex}` : "") +
    (nic.noOptionRom ? ",romfile=" : "");
  return [...port, "-netdev", netdev, "-device", `${device},netdev=net${i},id=${id}${options}`];
}

function speedOptions(nic: NicSpec, id: string): string {
  if (nic.speedMbps === undefined) return "";
  if (nic.model !== "virtio") throw new Error(`${id} is ${nic.model}: only virtio takes a speed`);
  return `,speed=${nic.speedMbps},duplex=full`;
}

function netdevOf(nic: NicSpec, i: number): string {
  if (nic.tap && nic.socket) throw new Error(`${nicId(i)} is a tap and a socket: one or the other`);
  if (nic.tap)
    return `tap,id=net${i},ifname=${qemuValue(nic.tap.ifname)},script=${qemuValue(nic.tap.script)},downscript=no`;
  if (nic.socket) {
    const { localPort, peerPort } = nic.socket;
    return `socket,id=net${i},udp=127.0.0.1:${peerPort},localaddr=127.0.0.1:${localPort}`;
  }
  return `user,id=net${i}`;
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
