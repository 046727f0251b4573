// systemd-udevd's net_id builtin, rewritten from its source: systemd-stable v252.31,
// src/udev/udev-builtin-net_id.c (Debian 12 ships 252.39; the file is the same from
// v252.31 on in the mirror), with the naming scheme "v252" of src/shared/netif-naming-scheme.h
// (every flag up to NAMING_DEVICETREE_ALIASES). net.naming-scheme= on the kernel command line
// and $NET_NAMING_SCHEME are ignored: liken's kernels are never given one, so "v252" it is.
// Left out: devicetree aliases (ID_NET_NAME_ONBOARD from /proc/device-tree, none on x86).
// Each function keeps the C one's name and order, so the two can be read side by side.
import { safeAtoi, safeAtou, scanDec, scanHex } from "./net-id-parse.ts";
import {
  ancestorWith,
  attr,
  attrBytes,
  childLink,
  deviceAt,
  entries,
  exists,
  parentOf,
  type SysDevice,
  subsystemOf,
  ueventValue,
} from "./sysfs-device.ts";

/** The properties net_id sets (udevadm test-builtin net_id prints them). */
export interface NetIdProperties {
  readonly ID_NET_NAMING_SCHEME?: string;
  readonly ID_NET_NAME_MAC?: string;
  readonly ID_NET_NAME_ONBOARD?: string;
  readonly ID_NET_LABEL_ONBOARD?: string;
  readonly ID_NET_NAME_PATH?: string;
  readonly ID_NET_NAME_SLOT?: string;
}

const ARPHRD_ETHER = 1;
const ARPHRD_INFINIBAND = 32;
const ARPHRD_SLIP = 256;
const NET_ADDR_PERM = 0;
// ALTIFNAMSIZ: every name is built in a buffer of 128 bytes; one that does not fit is none.
const ALTIFNAMSIZ = 128;
const ONBOARD_16BIT_INDEX_MAX = 0xffff;
const PCI_HEADER_TYPE = 0x0e;
const PCI_HEADER_TYPE_MULTIFUNC = 0x80;

interface LinkInfo {
  readonly ifindex: number;
  readonly iflink: number;
  readonly iftype: number;
  readonly devtype: string | null;
  readonly physPortName: string | null;
  readonly hwAddr: readonly number[] | null;
}

interface PciNames {
  onboard: string;
  onboardLabel: string | null;
  path: string;
  slot: string;
}

/** What net_id would set for interface `kernelName` of the sysfs tree under `root`. */
export async function netId(root: string, kernelName: string): Promise<NetIdProperties> {
  const dev = await deviceAt(root, `/sys/class/net/${kernelName}`);
  if (!dev) return {};
  const info = await linkInfo(dev);
  if (!info) return {};
  // Stacked devices (VLANs, ...) are skipped.
  if (info.ifindex !== info.iflink) return {};
  let prefix: string;
  if (info.iftype === ARPHRD_ETHER) prefix = "en";
  else if (info.iftype === ARPHRD_INFINIBAND) prefix = "ib";
  else if (info.iftype === ARPHRD_SLIP) prefix = "sl";
  else return {};
  if (info.devtype === "wlan") prefix = "wl";
  else if (info.devtype === "wwan") prefix = "ww";

  const props: Record<string, string> = { ID_NET_NAMING_SCHEME: "v252" };
  const put = (key: keyof NetIdProperties, ...parts: string[]) => {
    const value = parts.join("");
    if (value.length < ALTIFNAMSIZ) props[key] = value;
  };
  if (info.hwAddr && (await namesMac(dev, info))) {
    put("ID_NET_NAME_MAC", prefix, "x", info.hwAddr.map((b) => hex2(b)).join(""));
  }

  // The buses net_id tries before PCI, in its order; the first that names the device wins.
  const buses: readonly [keyof NetIdProperties, () => Promise<string | null>][] = [
    ["ID_NET_NAME_PATH", () => namesCcw(dev)],
    ["ID_NET_NAME_SLOT", () => namesVio(dev)],
    ["ID_NET_NAME_PATH", () => namesPlatform(dev)],
    ["ID_NET_NAME_PATH", () => namesNetdevsim(dev, info)],
    ["ID_NET_NAME_SLOT", () => namesXen(dev)],
  ];
  for (const [key, names] of buses) {
    const name = await names();
    if (name !== null) {
      put(key, prefix, name);
      return props;
    }
  }

  const pci = await namesPci(dev, info);
  if (!pci) return props;
  if (pci.isPci) {
    if (pci.names.onboard) put("ID_NET_NAME_ONBOARD", prefix, pci.names.onboard);
    // NAMING_LABEL_NOPREFIX: the firmware's label as it is.
    if (pci.names.onboardLabel !== null) put("ID_NET_LABEL_ONBOARD", pci.names.onboardLabel);
    if (pci.names.path) put("ID_NET_NAME_PATH", prefix, pci.names.path);
    if (pci.names.slot) put("ID_NET_NAME_SLOT", prefix, pci.names.slot);
    return props;
  }
  const usb = await namesUsb(dev);
  if (usb !== null) {
    if (pci.names.path) put("ID_NET_NAME_PATH", prefix, pci.names.path, usb);
    if (pci.names.slot) put("ID_NET_NAME_SLOT", prefix, pci.names.slot, usb);
    return props;
  }
  const bcma = await namesBcma(dev);
  if (bcma !== null) {
    if (pci.names.path) put("ID_NET_NAME_PATH", prefix, pci.names.path, bcma);
    if (pci.names.slot) put("ID_NET_NAME_SLOT", prefix, pci.names.slot, bcma);
  }
  return props;
}

function hex2(b: number): string {
  return b.toString(16).padStart(2, "0");
}

// get_link_info(): a device without IFINDEX, iflink or type gets no names at all.
async function linkInfo(dev: SysDevice): Promise<LinkInfo | null> {
  const ifindex = safeAtoi((await ueventValue(dev, "IFINDEX")) ?? "");
  const iflink = safeAtoi((await attr(dev, "iflink")) ?? "");
  const iftype = safeAtoi((await attr(dev, "type")) ?? "");
  if (ifindex === null || ifindex <= 0 || iflink === null || iftype === null) return null;
  const address = await attr(dev, "address");
  return {
    ifindex,
    iflink,
    iftype,
    devtype: await ueventValue(dev, "DEVTYPE"),
    physPortName: await attr(dev, "phys_port_name"),
    hwAddr: address === null ? null : parseHwAddr(address),
  };
}

// parse_hw_addr(): bytes of one or two hex digits separated by ':' (sysfs prints them so).
function parseHwAddr(text: string): number[] | null {
  const parts = text.split(":");
  if (!parts.every((p) => /^[0-9a-fA-F]{1,2}$/.test(p))) return null;
  return parts.map((p) => Number.parseInt(p, 16));
}

// names_mac(): only a permanent address (addr_assign_type 0) of six bytes, never InfiniBand.
async function namesMac(dev: SysDevice, info: LinkInfo): Promise<boolean> {
  if (info.iftype === ARPHRD_INFINIBAND || info.hwAddr?.length !== 6) return false;
  const type = safeAtou((await attr(dev, "addr_assign_type")) ?? "");
  return type === NET_ADDR_PERM;
}

// skip_virtio(): a virtio bus sits between a virtio-net interface and its PCI function.
async function skipVirtio(start: SysDevice | null): Promise<SysDevice | null> {
  let dev = start;
  while (dev) {
    if ((await subsystemOf(dev)) !== "virtio") return dev;
    dev = await parentOf(dev);
  }
  return null;
}

// names_pci(): `isPci` when the interface's own parent is the PCI function (plain PCI);
// otherwise the PCI device above it (a USB or BCMA NIC's controller).
async function namesPci(
  dev: SysDevice,
  info: LinkInfo,
): Promise<{ isPci: boolean; names: PciNames } | null> {
  const parent = await skipVirtio(await parentOf(dev));
  if (!parent) return null;
  let pcidev: SysDevice | null = parent;
  let isPci = true;
  if ((await subsystemOf(parent)) !== "pci") {
    isPci = false;
    pcidev = await ancestorWith(dev, "pci");
    if (!pcidev) return null;
  }
  const names: PciNames = { onboard: "", onboardLabel: null, path: "", slot: "" };
  const virtfn = await virtfnInfo(pcidev);
  if (virtfn) {
    // NAMING_SR_IOV_V: a virtual function is named after its physical function, plus v<N>.
    const vf: PciNames = { onboard: "", onboardLabel: null, path: "", slot: "" };
    await devPciOnboard(dev, info, virtfn.physfn, vf);
    await devPciSlot(dev, info, virtfn.physfn, vf);
    const join = (name: string) =>
      name && name.length + virtfn.suffix.length < ALTIFNAMSIZ ? name + virtfn.suffix : "";
    names.onboard = join(vf.onboard);
    names.slot = join(vf.slot);
    names.path = join(vf.path);
  } else {
    await devPciOnboard(dev, info, pcidev, names);
    await devPciSlot(dev, info, pcidev, names);
  }
  return { isPci, names };
}

// get_virtfn_info(): the physfn link, and the virtfn<N> link of it that points back here.
async function virtfnInfo(
  pcidev: SysDevice,
): Promise<{ physfn: SysDevice; suffix: string } | null> {
  const physfn = await childLink(pcidev, "physfn");
  if (!physfn) return null;
  for (const name of await entries(physfn)) {
    const n = /^virtfn(\d+)$/.exec(name)?.[1];
    if (n === undefined) continue;
    const child = await childLink(physfn, name);
    if (child?.syspath === pcidev.syspath) return { physfn, suffix: `v${n}` };
  }
  return null;
}

// The port suffix of onboard, slot and path names: the kernel's front-panel port name, or
// the port index of a PCI function with several.
function portSuffix(info: LinkInfo, devPort: number): string {
  if (info.physPortName) return `n${info.physPortName}`;
  return devPort > 0 ? `d${devPort}` : "";
}

function fits(name: string): string {
  return name.length < ALTIFNAMSIZ ? name : "";
}

// dev_pci_onboard(): the firmware's index, ACPI _DSM (acpi_index) before SMBIOS type 41
// (index); with NAMING_ZERO_ACPI_INDEX an index of 0 counts, with NAMING_16BIT_INDEX up
// to 65535. The label is read only when an index was.
async function devPciOnboard(
  dev: SysDevice,
  info: LinkInfo,
  pcidev: SysDevice,
  names: PciNames,
): Promise<void> {
  const text = (await attr(pcidev, "acpi_index")) ?? (await attr(pcidev, "index"));
  if (text === null) return;
  const idx = safeAtou(text);
  if (idx === null || idx > ONBOARD_16BIT_INDEX_MAX) return;
  const devPortText = await attr(dev, "dev_port");
  const devPort = devPortText === null ? 0 : (safeAtou(devPortText, 10) ?? 0);
  names.onboard = fits(`o${idx}${portSuffix(info, devPort)}`);
  names.onboardLabel = await attr(pcidev, "label");
}

// is_pci_multifunction(): bit 7 of the header type in config space.
async function isPciMultifunction(dev: SysDevice): Promise<boolean> {
  const config = await attrBytes(dev, "config");
  if (!config || config.length < PCI_HEADER_TYPE + 1) return false;
  return ((config[PCI_HEADER_TYPE] ?? 0) & PCI_HEADER_TYPE_MULTIFUNC) !== 0;
}

// is_pci_bridge(): the modalias's subclass is 04 (class 06, bridge; only "sc" is checked).
async function isPciBridge(dev: SysDevice): Promise<boolean> {
  const modalias = await attr(dev, "modalias");
  if (!modalias?.startsWith("pci:")) return false;
  const p = modalias.slice(modalias.lastIndexOf("s"));
  return p[1] === "c" && p.slice(2, 4) === "04";
}

// parse_hotplug_slot_from_function_id() (s390): the slot folder named by function_id.
// 0: no function_id; a number: the slot; null: a bad one, which ends the slot search.
async function slotFromFunctionId(dev: SysDevice, slotsDir: string): Promise<number | null> {
  const text = await attr(dev, "function_id");
  if (text === null) return 0;
  const id = safeAtou(text, 0, Number.MAX_SAFE_INTEGER);
  if (id === null || id <= 0 || id > 0xffff_ffff) return null;
  const name = id.toString(16).padStart(8, "0");
  return (await exists(dev.root, `${slotsDir}/${name}`)) ? id : null;
}

// dev_pci_slot(): the path name from the PCI address, and the slot name from the hotplug
// slot (/sys/bus/pci/slots/<N>/address) of the function or of a bridge above it.
async function devPciSlot(
  dev: SysDevice,
  info: LinkInfo,
  pcidev: SysDevice,
  names: PciNames,
): Promise<void> {
  const address = parsePciAddress(pcidev.sysname);
  if (!address) return;
  let { domain, func } = address;
  const { bus, slot } = address;
  // NAMING_NPAR_ARI: with ARI, slot and function are one 8-bit function number.
  if ((await attr(pcidev, "ari_enabled")) === "1") func += slot * 8;
  let devPort = 0;
  const devPortText = await attr(dev, "dev_port");
  if (devPortText !== null) {
    devPort = safeAtou(devPortText, 10) ?? 0;
    // Older kernels put an IPoIB port in dev_id instead.
    if (devPort === 0 && info.iftype === ARPHRD_INFINIBAND) {
      const devId = await attr(dev, "dev_id");
      if (devId !== null) devPort = safeAtou(devId, 10) ?? 0;
    }
  }
  const multifunction = await isPciMultifunction(pcidev);
  const functionPart = func > 0 || multifunction ? `f${func}` : "";
  const port = portSuffix(info, devPort);
  names.path = fits(`${domain > 0 ? `P${domain}` : ""}p${bus}s${slot}${functionPart}${port}`);

  // ACPI _SUN, through the slots the kernel's hotplug drivers register.
  const slotsDir = "/sys/bus/pci/slots";
  const slotNames = (await entries({ root: dev.root, syspath: slotsDir, sysname: "slots" }))
    .map((name) => ({ name, number: safeAtou(name) }))
    .filter((s): s is { name: string; number: number } => s.number !== null && s.number > 0)
    // readdir's order in udev; sorted here so a tree gives one answer (two slots with one
    // address do not occur on real firmware).
    .sort((a, b) => a.number - b.number);
  if (!(await exists(dev.root, slotsDir))) return;
  let hotplugSlot = 0;
  for (let hp: SysDevice | null = pcidev; hp; hp = await ancestorWith(hp, "pci")) {
    const fromId = await slotFromFunctionId(hp, slotsDir);
    if (fromId === null) return;
    if (fromId > 0) {
      hotplugSlot = fromId;
      domain = 0;
      break;
    }
    for (const s of slotNames) {
      const slotAddress = await attr(
        { root: dev.root, syspath: `${slotsDir}/${s.name}`, sysname: s.name },
        "address",
      );
      if (slotAddress === null || !hp.sysname.startsWith(slotAddress)) continue;
      hotplugSlot = s.number;
      // NAMING_BRIDGE_NO_SLOT and NAMING_BRIDGE_MULTIFUNCTION_SLOT: a bridge's slot names a
      // function below it only when that function is one of several.
      if ((await isPciBridge(hp)) && !multifunction) return;
      break;
    }
    if (hotplugSlot > 0) break;
  }
  if (hotplugSlot > 0) {
    names.slot = fits(`${domain > 0 ? `P${domain}` : ""}s${hotplugSlot}${functionPart}${port}`);
  }
}

// sscanf(sysname, "%x:%x:%x.%u").
function parsePciAddress(
  sysname: string,
): { domain: number; bus: number; slot: number; func: number } | null {
  const domain = scanHex(sysname);
  if (!domain?.[1].startsWith(":")) return null;
  const bus = scanHex(domain[1].slice(1));
  if (!bus?.[1].startsWith(":")) return null;
  const slot = scanHex(bus[1].slice(1));
  if (!slot?.[1].startsWith(".")) return null;
  const func = scanDec(slot[1].slice(1));
  if (!func) return null;
  return { domain: domain[0], bus: bus[0], slot: slot[0], func: func[0] };
}

// names_usb(): "u" and the port chain of the USB interface's name (1-3.2:1.0: u3u2), then
// the configuration unless 1 and the interface unless 0.
async function namesUsb(dev: SysDevice): Promise<string | null> {
  const usbdev = await ancestorWith(dev, "usb", "usb_interface");
  if (!usbdev) return null;
  const m = /^[^-]*-([^:]*):([^.]*)\.(.*)$/.exec(usbdev.sysname);
  if (!m) return null;
  const [, ports = "", config = "", interf = ""] = m;
  let name = `u${ports.replaceAll(".", "u")}`;
  if (config !== "1") name += `c${config}`;
  if (interf !== "0") name += `i${interf}`;
  return name.length < ALTIFNAMSIZ ? name : null;
}

// names_bcma(): "b<core>" unless the core is 0 (Broadcom's on-chip bus).
async function namesBcma(dev: SysDevice): Promise<string | null> {
  const bcmadev = await ancestorWith(dev, "bcma");
  if (!bcmadev) return null;
  const m = /^bcma\d+:(\d+)/.exec(bcmadev.sysname);
  if (!m) return null;
  const core = Number(m[1]);
  return core > 0 ? `b${core}` : "";
}

// names_ccw() (s390): "c" and the bus id without its leading zeros and dots.
async function namesCcw(dev: SysDevice): Promise<string | null> {
  const cdev = await skipVirtio(await parentOf(dev));
  if (!cdev) return null;
  const subsystem = await subsystemOf(cdev);
  if (subsystem !== "ccw" && subsystem !== "ccwgroup") return null;
  const busId = cdev.sysname;
  if (busId.length !== 8 && busId.length !== 9) return null;
  const lead = /^[.0]*/.exec(busId)?.[0].length ?? 0;
  return `c${busId.slice(lead < busId.length ? lead : busId.length - 1)}`;
}

// names_vio() (POWER): "v<slot>" from /sys/devices/vio/<bus 4 hex><slot 4 hex>/net/eth<N>.
async function namesVio(dev: SysDevice): Promise<string | null> {
  const parent = await parentOf(dev);
  if (!parent || (await subsystemOf(parent)) !== "vio") return null;
  const prefix = "/sys/devices/vio/";
  if (!dev.syspath.startsWith(prefix)) return null;
  const bus = scanHex(dev.syspath.slice(prefix.length), 4);
  const slot = bus && scanHex(bus[1], 4);
  if (!slot?.[1].startsWith("/net/eth") || !scanDec(slot[1].slice("/net/eth".length))) {
    return null;
  }
  return `v${slot[0]}`;
}

// names_platform() (ARM64 ACPI): "a<vendor><model hex>i<instance>" from
// /sys/devices/platform/<VNDR><MODL>:<II>/net/eth<N>.
async function namesPlatform(dev: SysDevice): Promise<string | null> {
  const parent = await parentOf(dev);
  if (!parent || (await subsystemOf(parent)) !== "platform") return null;
  const test = "/sys/devices/platform/vvvvPPPP";
  const prefix = "/sys/devices/platform/";
  if (dev.syspath.length < test.length + 1 || !dev.syspath.startsWith(prefix)) return null;
  const four = dev.syspath[test.length] === ":";
  const rest = dev.syspath.slice(prefix.length);
  const vendor = /^\S{1,4}/.exec(rest)?.[0].slice(0, four ? 4 : 3) ?? "";
  const model = scanHex(rest.slice(vendor.length), 4);
  if (!vendor || !model?.[1].startsWith(":")) return null;
  const instance = scanHex(model[1].slice(1), 2);
  if (!instance?.[1].startsWith("/net/eth") || !scanDec(instance[1].slice("/net/eth".length))) {
    return null;
  }
  if (!(four ? /^[A-Z0-9]+$/ : /^[A-Z]+$/).test(vendor)) return null;
  return `a${vendor.toLowerCase()}${model[0].toString(16)}i${instance[0]}`;
}

// names_netdevsim(): "i<netdevsim N>n<port name>".
async function namesNetdevsim(dev: SysDevice, info: LinkInfo): Promise<string | null> {
  if (!info.physPortName) return null;
  const sim = await ancestorWith(dev, "netdevsim");
  const m = sim && /^netdevsim(\d+)/.exec(sim.sysname);
  return m ? `i${m[1]}n${info.physPortName}` : null;
}

// names_xen(): "X<N>" of a Xen netfront at /sys/devices/vif-<N>/.
async function namesXen(dev: SysDevice): Promise<string | null> {
  const parent = await parentOf(dev);
  if (!parent || (await subsystemOf(parent)) !== "xen") return null;
  const m = /^\/sys\/devices\/vif-([^/]*)\//.exec(dev.syspath);
  if (!m?.[1] || !/^(0|[1-9]\d*)$/.test(m[1])) return null;
  return `X${Number(m[1])}`;
}
