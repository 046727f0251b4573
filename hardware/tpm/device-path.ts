// The device path of an image the firmware loaded, as a UEFI_IMAGE_LOAD_EVENT carries it
// (TCG PC Client Platform Firmware Profile 1.05, 10.2.3): ImageLocationInMemory,
// ImageLengthInMemory, ImageLinkTimeAddress and LengthOfDevicePath (each 8 bytes), then the
// path's nodes (UEFI spec 2.10, chapter 10: type, subtype, a 2-byte length, data). An option
// ROM's driver is on a path such as PciRoot(0x0)/Pci(0x3,0x0)/Offset(0x10000,0x2F5FF): the
// host bridge by its ACPI _UID, each PCI device and bridge on the way by device and
// function, then where in the ROM the image sits.

export type DevicePathNode =
  /** A host bridge by its ACPI _UID; `express` for PNP0A08, written PcieRoot. */
  | { readonly kind: "pci-root"; readonly uid: number; readonly express: boolean }
  | { readonly kind: "pci"; readonly device: number; readonly function: number }
  | { readonly kind: "other"; readonly text: string };

const HARDWARE = 0x01;
const ACPI = 0x02;
const MEDIA = 0x04;
const END = 0x7f;
const HW_PCI = 0x01;
const HW_MEMMAP = 0x03;
const ACPI_DP = 0x01;
const MEDIA_OFFSET = 0x08;
const MEDIA_PIWG_FILE = 0x06;
const MEDIA_PIWG_VOLUME = 0x07;
// EISA_PNP_ID(0x0A03) and (0x0A08): a PCI and a PCI Express host bridge.
const PNP0A03 = 0x0a0341d0;
const PNP0A08 = 0x0a0841d0;
const IMAGE_LOAD_HEADER = 32;

/** The device path of a UEFI_IMAGE_LOAD_EVENT's data; null when the data is not one. */
export function imageLoadDevicePath(data: Buffer): DevicePathNode[] | null {
  if (data.length < IMAGE_LOAD_HEADER) return null;
  const length = data.readBigUInt64LE(24);
  if (length > BigInt(data.length - IMAGE_LOAD_HEADER)) return null;
  return devicePathNodes(data.subarray(IMAGE_LOAD_HEADER, IMAGE_LOAD_HEADER + Number(length)));
}

/** The nodes up to the first end node or the last whole node; a node that lies stops the walk. */
export function devicePathNodes(path: Buffer): DevicePathNode[] {
  const nodes: DevicePathNode[] = [];
  for (let at = 0; at + 4 <= path.length; ) {
    const type = path[at] as number;
    const subtype = path[at + 1] as number;
    const length = path.readUInt16LE(at + 2);
    if (length < 4 || at + length > path.length) break;
    if (type === END) break;
    nodes.push(node(type, subtype, path.subarray(at + 4, at + length)));
    at += length;
  }
  return nodes;
}

function node(type: number, subtype: number, body: Buffer): DevicePathNode {
  if (type === ACPI && subtype === ACPI_DP && body.length === 8) {
    const hid = body.readUInt32LE(0);
    const uid = body.readUInt32LE(4);
    if (hid === PNP0A03 || hid === PNP0A08)
      return { kind: "pci-root", uid, express: hid === PNP0A08 };
    return other(`Acpi(0x${hex(hid)},0x${hex(uid)})`);
  }
  if (type === HARDWARE && subtype === HW_PCI && body.length === 2)
    return { kind: "pci", function: body[0] as number, device: body[1] as number };
  if (type === MEDIA && subtype === MEDIA_OFFSET && body.length === 20)
    return other(`Offset(0x${hex(body.readBigUInt64LE(4))},0x${hex(body.readBigUInt64LE(12))})`);
  if (type === HARDWARE && subtype === HW_MEMMAP && body.length === 20)
    return other(
      `MemoryMapped(0x${hex(body.readUInt32LE(0))},0x${hex(body.readBigUInt64LE(4))},0x${hex(body.readBigUInt64LE(12))})`,
    );
  if (
    type === MEDIA &&
    (subtype === MEDIA_PIWG_FILE || subtype === MEDIA_PIWG_VOLUME) &&
    body.length === 16
  )
    return other(`${subtype === MEDIA_PIWG_FILE ? "FvFile" : "Fv"}(${guid(body)})`);
  // The spec's text for a node it has no name for: Path(type,subtype,data in hex).
  return other(`Path(${type},${subtype},${body.toString("hex").toUpperCase()})`);
}

const other = (text: string): DevicePathNode => ({ kind: "other", text });
const hex = (n: number | bigint) => n.toString(16).toUpperCase();

function guid(b: Buffer): string {
  const h = (from: number, to: number) => b.subarray(from, to).toString("hex");
  const le = (from: number, to: number) =>
    Buffer.from(b.subarray(from, to)).reverse().toString("hex");
  return `${le(0, 4)}-${le(4, 6)}-${le(6, 8)}-${h(8, 10)}-${h(10, 16)}`.toUpperCase();
}

/** The path as the UEFI spec writes it: `PciRoot(0x0)/Pci(0x3,0x0)/Offset(0x10000,0x2F5FF)`. */
export function devicePathText(nodes: readonly DevicePathNode[]): string {
  return nodes
    .map((n) => {
      if (n.kind === "pci-root") return `${n.express ? "PcieRoot" : "PciRoot"}(0x${hex(n.uid)})`;
      if (n.kind === "pci") return `Pci(0x${hex(n.device)},0x${hex(n.function)})`;
      return n.text;
    })
    .join("/");
}
