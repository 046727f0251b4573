// Which option ROMs the firmware ran on this boot, from the TPM event log: each UEFI driver
// it loaded from a ROM is an EV_EFI_BOOT_SERVICES_DRIVER event in PCR 2 (TCG PC Client
// Platform Firmware Profile 1.05, 10.4.4), whose UEFI_IMAGE_LOAD_EVENT names the PCI
// device the ROM is on. Those ROMs are signed by Microsoft's UEFI CA: a machine enrolled with
// the cluster's keys and without that CA stops running them, and a GPU, NIC or RAID
// controller whose ROM does not run leaves the machine without a display, a network boot or
// a boot disk (kairos-io/kairos#2377). The enrollment and the hardware report both take the
// finding from here. Pure: sysfs comes in as a reader, pci.ids as a lookup.
import { namePciDevice, type PciIds, type PciNames } from "../../formats/pci-ids.ts";
import { type DevicePathNode, devicePathText, imageLoadDevicePath } from "./device-path.ts";
import { EV_EFI_BOOT_SERVICES_DRIVER, type EventLog } from "./event-log.ts";

/** PCR 2: code the platform did not ship, option ROMs first among it. */
const PCR_OPTION_ROMS = 2;

/** A device whose option ROM ran. Ids are 4 lower-case hex digits. */
export interface OptionRomDevice {
  /** The kernel's PCI address, `0000:00:03.0`; null where the path could not be followed. */
  readonly address: string | null;
  /** The driver's device path as the firmware logged it: `PciRoot(0x0)/Pci(0x3,0x0)/Offset(...)`. */
  readonly path: string;
  readonly vendorId: string | null;
  readonly deviceId: string | null;
  /** What pci.ids calls the vendor and the device; null where it does not. */
  readonly vendor: string | null;
  readonly device: string | null;
  /** The Linux driver bound to it now (`virtio-pci`), or null. */
  readonly driver: string | null;
}

/** Why the log could not be read, for the enrollment's and the report's one line. */
export type OptionRomUnknown = "no TPM" | "no event log" | "unreadable event log";

export type OptionRomFinding =
  | { readonly kind: "none" }
  | { readonly kind: "found"; readonly devices: readonly OptionRomDevice[] }
  | {
      readonly kind: "unknown";
      readonly why: OptionRomUnknown;
      /** The reason in full where there is more to say (where the log is damaged). */
      readonly detail: string | null;
    };

/** The sysfs files the finding reads, by paths relative to the root ("sys/devices/..."). */
export interface SysfsReader {
  /** The names in a folder; none when it is missing. */
  list(path: string): readonly string[];
  /** A file's text without surrounding blanks; null when missing or unreadable. */
  text(path: string): string | null;
  /** The last part of a link's target (a driver's name); null when it is no link. */
  linkName(path: string): string | null;
}

/** The device paths of the option-ROM drivers the log records, in the order they ran. */
export function optionRomPaths(log: EventLog): DevicePathNode[][] {
  return log.events.flatMap((e) => {
    if (e.pcr !== PCR_OPTION_ROMS || e.type !== EV_EFI_BOOT_SERVICES_DRIVER) return [];
    return [imageLoadDevicePath(e.data) ?? []];
  });
}

/** The finding of a log that parsed: each device once, named from sysfs and pci.ids. */
export function optionRomFinding(
  log: EventLog,
  sysfs: SysfsReader,
  pciNames: (ids: readonly PciIds[]) => PciNames,
): OptionRomFinding {
  const seen = new Map<string, { address: string | null; path: string }>();
  for (const nodes of optionRomPaths(log)) {
    const address = pciAddress(nodes, sysfs);
    const path = devicePathText(nodes) || "an empty device path";
    // A ROM often holds more than one driver (a NIC's UNDI and its network stack): one device.
    const key = address ?? devicePathText(devicePart(nodes));
    if (!seen.has(key)) seen.set(key, { address, path });
  }
  if (seen.size === 0) return { kind: "none" };
  const found = [...seen.values()].map((d) => ({ ...d, ids: pciIdsAt(d.address, sysfs) }));
  const names = pciNames(found.flatMap((d) => (d.ids ? [d.ids] : [])));
  return {
    kind: "found",
    devices: found.map(({ address, path, ids }) => ({
      address,
      path,
      vendorId: ids?.vendor ?? null,
      deviceId: ids?.device ?? null,
      ...(ids
        ? (({ vendor, device }) => ({ vendor, device }))(namePciDevice(names, ids))
        : { vendor: null, device: null }),
      driver: address ? sysfs.linkName(`sys/bus/pci/devices/${address}/driver`) : null,
    })),
  };
}

// The path's host bridge and PCI nodes: the device, without where in its ROM the image was.
function devicePart(nodes: readonly DevicePathNode[]): DevicePathNode[] {
  const last = nodes.findLastIndex((n) => n.kind === "pci");
  return last < 0 ? [...nodes] : nodes.slice(0, last + 1);
}

/**
 * The kernel's address of the device a ROM-shaped path (a host bridge, PCI nodes, then at
 * most one node saying where in the ROM) ends at: the host bridge whose ACPI _UID the path
 * names, then at each PCI node the child of that device and function, through every bridge
 * on the way, as sysfs shows them. Without sysfs, a device on the first host bridge's bus 0
 * has the address the path spells; any other stays null. A driver loaded from a file is no
 * option ROM's and has none either.
 */
export function pciAddress(nodes: readonly DevicePathNode[], sysfs: SysfsReader): string | null {
  const [root, ...rest] = nodes;
  if (root?.kind !== "pci-root") return null;
  const pcis = rest.filter((n) => n.kind === "pci");
  const tail = rest.slice(pcis.length);
  if (pcis.length === 0 || rest.slice(0, pcis.length).some((n) => n.kind !== "pci")) return null;
  if (
    tail.length > 1 ||
    tail.some((n) => n.kind !== "other" || !/^(Offset|MemoryMapped)\(/.test(n.text))
  )
    return null;
  const walked = walk(root.uid, pcis, sysfs);
  if (walked !== undefined) return walked;
  const [only] = pcis;
  if (root.uid !== 0 || pcis.length !== 1 || !only || only.kind !== "pci") return null;
  return `0000:00:${hex2(only.device)}.${only.function}`;
}

const PCI_ROOT = /^pci([0-9a-f]{4}):([0-9a-f]{2})$/;
const PCI_CHILD = /^[0-9a-f]{4}:[0-9a-f]{2}:([0-9a-f]{2})\.([0-7])$/;
const hex2 = (n: number) => n.toString(16).padStart(2, "0");

// undefined: sysfs has no host bridges to walk (a test, or no /sys); null: it has them and
// the path leads nowhere among them.
function walk(
  uid: number,
  pcis: readonly DevicePathNode[],
  sysfs: SysfsReader,
): string | null | undefined {
  const roots = sysfs.list("sys/devices").filter((n) => PCI_ROOT.test(n));
  if (roots.length === 0) return undefined;
  const byUid = roots.find((r) => sysfs.text(`sys/devices/${r}/firmware_node/uid`) === String(uid));
  const root = byUid ?? (uid === 0 && roots.includes("pci0000:00") ? "pci0000:00" : undefined);
  if (!root) return null;
  let dir = `sys/devices/${root}`;
  let address: string | null = null;
  for (const n of pcis) {
    if (n.kind !== "pci") return null;
    const child = sysfs.list(dir).find((c) => {
      const m = PCI_CHILD.exec(c);
      return (
        m !== null && Number.parseInt(m[1] ?? "", 16) === n.device && Number(m[2]) === n.function
      );
    });
    if (!child) return null;
    dir = `${dir}/${child}`;
    address = child;
  }
  return address;
}

// The device's ids from its sysfs folder (`0x1af4`), for pci.ids.
function pciIdsAt(at: string | null, sysfs: SysfsReader): PciIds | null {
  if (!at) return null;
  const id = (name: string) => {
    const v = sysfs.text(`sys/bus/pci/devices/${at}/${name}`);
    return v && /^0x[0-9a-fA-F]{4}$/.test(v) ? v.slice(2).toLowerCase() : null;
  };
  const vendor = id("vendor");
  const device = id("device");
  if (!vendor || !device) return null;
  return {
    vendor,
    device,
    subsystemVendor: id("subsystem_vendor") ?? "",
    subsystemDevice: id("subsystem_device") ?? "",
  };
}

/** The finding in one line: what the report prints and the enrollment says on the console. */
export function optionRomWords(finding: OptionRomFinding): string {
  if (finding.kind === "none") return "no option ROMs ran";
  if (finding.kind === "unknown")
    return `could not check: ${UNKNOWN_WORDS[finding.why]}${finding.detail ? ` (${finding.detail})` : ""}`;
  return `the firmware ran option ROMs of: ${finding.devices.map(deviceWords).join("; ")}; enrolling without Microsoft's UEFI CA would stop them`;
}

const UNKNOWN_WORDS: Readonly<Record<OptionRomUnknown, string>> = {
  "no TPM": "no TPM",
  "no event log": "no TPM event log",
  "unreadable event log": "the TPM event log does not parse",
};

/**
 * `00:03.0 Red Hat, Inc. Virtio network device`: the short address, then the names, with
 * the ids as `lspci -nn` shows them where pci.ids lacks the device's name.
 */
export function deviceWords(d: OptionRomDevice): string {
  const where = d.address ? d.address.replace(/^0000:/, "") : d.path;
  const ids = d.vendorId && d.deviceId && !d.device ? `[${d.vendorId}:${d.deviceId}]` : null;
  return [where, d.vendor, d.device, ids].filter(Boolean).join(" ");
}
