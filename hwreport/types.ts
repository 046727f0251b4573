// The hardware report: the `hwreport --json` value (docs/hwreport.md is its schema, and
// changes to it are changes to a contract). Every field is present; what was not found is
// null, never an empty string.
import type { Arch } from "../common/arch.ts";
import type { InterfaceKind } from "../common/network-declaration.ts";
import type { LldpNeighbor } from "../formats/lldp.ts";
import type { Verdict } from "../hardware/disks/types.ts";
import type { OptionRomFinding } from "../hardware/tpm/option-roms.ts";
import type { BootSupport, ChainLevel } from "../hardware/types.ts";
import type { PlanResult } from "../installer/plan/types.ts";

export type { BootSupport, ChainLevel, OptionRomFinding };

export const HWREPORT_SCHEMA = "liken-hwreport/2";

export interface DiskReport {
  readonly name: string;
  readonly path: string;
  readonly size: number;
  readonly model: string | null;
  /** As `disks` reads it on every bus (VPD pages, NVMe's wwid, virtio's serial), else sysfs's own. */
  readonly serial: string | null;
  /** The World Wide Name (NAA, EUI-64 or NGUID) as `disks` reads it; null when none. */
  readonly wwn: string | null;
  readonly removable: boolean;
  readonly readOnly: boolean;
  /** `nvme`, `sata`, `usb`, `virtio`, `scsi`, `mmc`, or null: read from the chain. */
  readonly bus: string | null;
  /** The PCI device the chain reaches first; null for a virtual device. */
  readonly controller: ControllerReport | null;
  /** From the disk itself up to the PCI root. Empty for a virtual device. */
  readonly chain: readonly ChainLevel[];
  /** The modules the chain needs, in chain order (built-ins included). */
  readonly modules: readonly string[];
  /** The modules the release cannot load at boot; null without --release. */
  readonly missingModules: readonly string[] | null;
  /** The disk inventory's verdict and reasons (`disks --json`); null when it did not run. */
  readonly verdict: Verdict | null;
  readonly reasons: readonly string[];
}

/**
 * A disk's or NIC's controller: the first PCI device of its chain, with what pci.ids calls
 * it (docs/hwreport.md says which pci.ids). Ids are 4 lower-case hex digits.
 */
export interface ControllerReport {
  /** Its bound driver (`megaraid_sas`), null when none is bound. */
  readonly driver: string | null;
  readonly vendorId: string;
  readonly deviceId: string;
  readonly subsystemVendorId: string;
  readonly subsystemDeviceId: string;
  /** `Broadcom / LSI`; null when pci.ids does not name the vendor. */
  readonly vendor: string | null;
  /** `MegaRAID SAS 2108 [Liberator]`; null when pci.ids does not name the device. */
  readonly device: string | null;
  /** The card as its maker names it, as lspci prints it: `Dell PERC H700 Integrated`; or null. */
  readonly subsystem: string | null;
}

export interface NicReport {
  /**
   * The name the installed machine gives it, as systemd-udevd would (hardware/net-names.ts):
   * the name a manifest's ports use. The kernel's name when udev would keep that.
   */
  readonly name: string;
  /** The kernel's name on this boot (`eth0` on the stick, which has no udev). */
  readonly kernelName: string;
  /** Every predictable name the scheme gives; `name` is the first of onboard, slot, path. */
  readonly names: {
    readonly onboard: string | null;
    readonly slot: string | null;
    readonly path: string | null;
    readonly mac: string | null;
  };
  readonly mac: string | null;
  readonly driver: string | null;
  readonly module: string | null;
  readonly builtin: boolean;
  /** A cable is in and the link is up. Unreadable (the interface is down) counts as false. */
  readonly carrier: boolean;
  /** Mbit/s; null when the kernel does not say (no link, virtual NICs). */
  readonly speed: number | null;
  readonly operstate: string | null;
  /** The NIC's PCI device (or the one its USB adapter hangs off); null for none. */
  readonly controller: ControllerReport | null;
  readonly chain: readonly ChainLevel[];
  /** Firmware files its driver asked this kernel for (the kernel's log), as the release has them. */
  readonly firmware: readonly { readonly file: string; readonly carried: boolean | null }[];
  /** The switch and port it is cabled to, from their LLDP; null when none was heard or asked. */
  readonly neighbor: LldpNeighbor | null;
}

/** A declared interface of a machine (`[[machines.interfaces]]`) and whether this machine can build it. */
export interface InterfaceReport {
  readonly machine: string;
  readonly name: string;
  readonly kind: InterfaceKind;
  /** The ports under it: itself, a bond's members, or the ports of a VLAN's link. */
  readonly ports: readonly {
    readonly port: string;
    readonly exists: boolean;
    readonly carrier: boolean;
  }[];
  /** Every port under it exists here. */
  readonly buildable: boolean;
  /** One line: "can be built: bond members eno1 and eno2 with carrier". */
  readonly summary: string;
}

export interface PortReport {
  readonly machine: string;
  readonly port: string;
  readonly exists: boolean;
  readonly carrier: boolean;
  /** The NIC it is: its kernel name, driver and MAC; null when the port does not exist here. */
  readonly nic: {
    readonly kernelName: string;
    readonly driver: string | null;
    readonly mac: string | null;
  } | null;
}

export type ProblemReason =
  | "missing-driver"
  | "missing-firmware"
  | "port-missing"
  | "port-no-carrier"
  | "no-layout"
  | "legacy-firmware"
  | "tool-missing"
  | "section-failed"
  | "no-release"
  | "release-not-trusted"
  | "secure-boot-setup-mode";

export interface Problem {
  readonly reason: ProblemReason;
  /** error: an install would fail or leave something out; warning: it works, worse; note: the report is partial. */
  readonly severity: "error" | "warning" | "note";
  /** The disk, port, machine, tool or section it is about. */
  readonly subject: string;
  /** What is wrong, in a sentence. */
  readonly message: string;
  /** What to do. */
  readonly hint: string;
}

export interface SystemReport {
  readonly manufacturer: string | null;
  readonly product: string | null;
  readonly serial: string | null;
  readonly uuid: string | null;
  readonly baseboard: {
    readonly manufacturer: string | null;
    readonly product: string | null;
    readonly serial: string | null;
  };
  readonly firmware: {
    readonly mode: "uefi" | "legacy";
    /** Secure Boot on (the SecureBoot efivar); null on legacy firmware or when unreadable. */
    readonly secureBoot: boolean | null;
    /** From the SecureBoot and SetupMode efivars; null on legacy firmware or when unreadable. */
    readonly secureBootState: "enabled" | "disabled" | "setup-mode" | null;
    /** The common names of the certificates enrolled in PK, KEK and db; null where unread. */
    readonly secureBootKeys: {
      readonly pk: readonly string[];
      readonly kek: readonly string[];
      readonly db: readonly string[];
    } | null;
    readonly vendor: string | null;
    readonly version: string | null;
    readonly date: string | null;
  };
}

/**
 * The machine's TPM as the kernel shows it, and the option ROMs its event log says the
 * firmware ran (hardware/tpm/): what an install that seals a key to the TPM, and the
 * stick's Secure Boot enrollment, depend on.
 */
export interface TpmReport {
  readonly present: boolean;
  /** `2.0` or `1.2`; null without a TPM, or when the kernel does not say. */
  readonly version: "2.0" | "1.2" | null;
  /** The kernel's driver, which says the interface: `tpm_crb`, `tpm_tis`, ...; or null. */
  readonly driver: string | null;
  /** Its maker's TCG vendor ID (`IFX`, `INTC`, `AMD`, `IBM` for swtpm); null where not read. */
  readonly manufacturer: string | null;
  /** A TPM 2.0's firmware version, `major.minor.x.y`; null where not read. */
  readonly firmware: string | null;
  /** The event log's path, when it could be read; null when not. */
  readonly eventLog: string | null;
  readonly optionRoms: OptionRomFinding;
}

export interface CpuReport {
  /** amd64 or arm64 as /proc/cpuinfo shows it (an x86 vendor_id, an Arm implementer); null otherwise. */
  readonly arch: Arch | null;
  readonly manufacturer: string | null;
  readonly brand: string | null;
  readonly cores: number;
  readonly physicalCores: number;
  readonly sockets: number;
  /** GHz, the highest the CPU reports; null when unknown. */
  readonly speedMax: number | null;
}

export interface MemoryReport {
  /** Bytes. */
  readonly total: number;
}

export interface LayoutReport {
  readonly machine: string;
  /** What `plan --json` prints for this machine. */
  readonly plan: PlanResult;
}

export interface HwReport {
  readonly schema: typeof HWREPORT_SCHEMA;
  readonly generatedAt: string;
  /** Most severe first. */
  readonly problems: readonly Problem[];
  readonly system: SystemReport | null;
  readonly tpm: TpmReport;
  readonly cpu: CpuReport | null;
  readonly memory: MemoryReport | null;
  readonly disks: readonly DiskReport[];
  readonly nics: readonly NicReport[];
  readonly ports: readonly PortReport[];
  /** The chosen machines' declared interfaces, each judged against this machine's NICs. */
  readonly interfaces: readonly InterfaceReport[];
  /** The release judged against; null without --release. */
  readonly release: {
    readonly version: string;
    readonly kernel: string;
    /** Whether this firmware would start the release's boot image; null without UEFI variables. */
    readonly signature: ReleaseSignature | null;
  } | null;
  /** One entry per machine planned; empty without --manifest. */
  readonly layouts: readonly LayoutReport[];
  /** Where the report was saved on the stick, or null. */
  readonly saved: string | null;
}

export interface ReleaseSignature {
  readonly secureBoot: "enabled" | "disabled" | "setup-mode";
  /** `trusted`: signed by a key in this firmware's db (or one it issued). */
  readonly verdict: "trusted" | "untrusted" | "unsigned";
  /** The signing certificate's common name; null when unsigned. */
  readonly signer: string | null;
}
