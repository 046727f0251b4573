// The virtual machine of the QEMU tests (test/qemu/), the benches and `npm run vm`, as a
// value: what a VmSpec may say about the machine's board, firmware, media, disks and NICs.
// args.ts turns it into QEMU's command line.
import type { Arch } from "../../common/arch.ts";

/**
 * Where a disk hangs: virtio-blk, NVMe, AHCI (SATA), or a SCSI disk behind virtio-scsi, an
 * LSI MegaRAID SAS 2108 (`megasas-gen2`: the megaraid_sas of Dell's PERC and its kin) or
 * an LSI SAS1068 HBA (`mptsas1068`: mptsas). OVMF boots from the first three and
 * virtio-scsi; it has no driver for QEMU's LSI controllers (docs/install.md). AAVMF (arm64)
 * boots from virtio, NVMe and virtio-scsi, not from AHCI: it has no AHCI driver (QEMU
 * still takes the controller on virt's PCIe, for the guest's kernel).
 */
export type DiskBus = "virtio" | "nvme" | "ahci" | "virtio-scsi" | "megasas" | "mptsas";

/**
 * A NIC model, each on QEMU's user network unless its NicSpec says otherwise: virtio-net, Intel's e1000e (82574L), or a USB
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
  /**
   * A cable to another QEMU's NIC instead of QEMU's user network: a UDP socket pair on
   * 127.0.0.1, frames sent to `peerPort` and received on `localPort` (the other end has
   * the two the other way round). Neither end listens first, so the two QEMUs start in any
   * order; a frame sent before the other end is up is lost, as on a cable not yet plugged.
   */
  readonly socket?: { readonly localPort: number; readonly peerPort: number };
  /**
   * The link speed a virtio NIC reports, full duplex (VIRTIO_NET_F_SPEED_DUPLEX); without
   * it the guest reads the speed as unknown, and the bonding driver keeps such a port out
   * of an 802.3ad bond ("failed to get link speed/duplex"). e1000e reports its own.
   */
  readonly speedMbps?: number;
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

/** Where the guest's first serial port goes: ttyS0 (a PC's 8250), ttyAMA0 (virt's PL011). */
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

/**
 * A Linux kernel QEMU boots itself (`-kernel`, `-initrd`, `-append`), with no UEFI firmware
 * and no disk: the test network's switch VM (testing/switch-vm/), up in seconds.
 */
export interface DirectKernelBoot {
  readonly kernel: string;
  readonly initrd: string;
  /** The kernel's command line. */
  readonly append: string;
}

export interface VmSpec {
  /**
   * amd64 (the default): qemu-system-x86_64 and the board `machine` names. arm64:
   * qemu-system-aarch64's virt with ACPI, its PL011 as the serial port, AAVMF as the
   * firmware, TCG's `max` CPU; the PC-only fields (machine, SMM, ib700, isa-debug-exit, a
   * NIC's acpiIndex) are refused there (board.ts).
   */
  readonly arch?: Arch;
  /**
   * q35 (PCIe, ICH9 with its TCO watchdog), the default: what servers look like. pc (i440fx,
   * PIIX) for a machine with no chipset watchdog at all.
   */
  readonly machine?: "q35" | "pc";
  readonly memoryMiB?: number;
  readonly cpus?: number;
  readonly accel?: Accel;
  /** OVMF. A VM boots OVMF, a kernel (`kernel`: SeaBIOS hands it over), or both. */
  readonly firmware?: VmFirmware;
  readonly kernel?: DirectKernelBoot;
  /** A stick image attached as a removable USB mass-storage device, first in the boot order. */
  readonly stick?: string;
  /** Let the guest write the stick image itself (by default its writes go to a throwaway overlay). */
  readonly stickWritable?: boolean;
  /**
   * An ISO in a CD drive on its own AHCI controller (virtio-scsi on arm64), first in the
   * boot order (a stick too: the stick first): a BMC's virtual media or a real drive, both
   * read-only.
   */
  readonly cdrom?: string;
  /** Disks in boot order, after the stick. */
  readonly disks?: readonly VmDisk[];
  /** Network ports, none by default; each on its own user-mode network (no host setup). */
  readonly nics?: readonly VmNic[];
  readonly serial: SerialSpec;
  /** A unix socket for QMP (testing/qmp.ts). */
  readonly qmpSocket?: string;
  /** Exit when the guest reboots (a supervisor relaunches it, and can swap media in between). */
  readonly noReboot?: boolean;
  /**
   * A watchdog card that resets the machine when it expires: QEMU's i6300esb (PCI, the
   * default), ib700 (ISA, nothing to find it by), or none. On q35 the chipset's TCO watchdog
   * is there as well, as on an Intel board.
   */
  readonly watchdog?: "i6300esb" | "ib700" | "none";
  /**
   * A TPM 2.0 on the CRB interface (as a server's fTPM or dTPM appears; TIS on arm64's virt),
   * backed by the swtpm listening on this control socket (testing/swtpm.ts): the firmware
   * measures the boot into it. Debian 12's arm64 kernel has no driver for virt's TIS
   * (CONFIG_TCG_TIS is not set): there only AAVMF uses the TPM.
   */
  readonly tpmSocket?: string;
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
