// The names systemd-udevd 252 (Debian 12) gives a network interface, computed from sysfs:
// the liken stick and the installed machine run no udev, so the kernel's eth0 and eth1
// stay, while operators write udev's names (eno1, ens1, enp4s0f0) in their manifests.
//
// netNames() runs hardware/net-id.ts (the net_id builtin) and then the naming of Debian 12's
// rules and .link files, in their order (systemd-stable v252.31: src/udev/net/link-config.c,
// link_generate_new_name(); network/99-default.link; Debian's
// 73-special-net-names.rules and 73-usb-net-by-mac.link):
//   1. 73-special-net-names.rules: Dell iDRAC and IBM IMM USB NICs are idrac and ibmimm,
//      ibmveth is ibmveth<slot>;
//   2. the first .link file that matches: 73-usb-net-by-mac.link for a NIC with USB on its
//      path (NamePolicy=mac), else 99-default.link (NamePolicy=keep kernel database onboard
//      slot path); a policy that yields no valid name (ifname_valid: at most 15 characters)
//      is passed over, and when none does the name stays.
// "keep" keeps a name userspace gave (name_assign_type 3 or 4, so on a machine that runs
// udev the interfaces already have their names and predictable is null); "kernel" keeps a
// name the kernel says is predictable (2). "database" is udev's hwdb
// (20-net-ifname.hwdb); Debian 12's only entry names the iDRAC, which rule 1 names first.
import { netId } from "./net-id.ts";
import { ifnameValid, safeAtou } from "./net-id-parse.ts";
import { attr, deviceAt, parentOf, type SysDevice, subsystemOf } from "./sysfs-device.ts";

/** The names udev would compute for one interface; null where it computes none. */
export interface NetNames {
  /** ID_NET_NAME_ONBOARD: the firmware's index of an onboard NIC (eno1, eno1np0). */
  readonly onboard: string | null;
  /** ID_NET_NAME_SLOT: the PCI hotplug slot (ens1, ens1f1np1). */
  readonly slot: string | null;
  /** ID_NET_NAME_PATH: the PCI address (enp4s0f0), with USB ports (enp0s20u1). */
  readonly path: string | null;
  /** ID_NET_NAME_MAC: from a permanent MAC address (enx525400123456); not chosen by default. */
  readonly mac: string | null;
  /**
   * The name udev's default policy gives, or null when udev would keep the interface's
   * current name (a name userspace already gave, or none of the names above is valid).
   */
  readonly predictable: string | null;
  /** ID_NET_LABEL_ONBOARD: the firmware's label of an onboard NIC, as it is. */
  readonly label: string | null;
}

// The kernel's name_assign_type (include/uapi/linux/netdevice.h).
const NET_NAME_PREDICTABLE = 2;
const NET_NAME_USER = 3;
const NET_NAME_RENAMED = 4;

/**
 * What systemd-udevd 252 with Debian 12's defaults names interface `kernelName`, read from
 * the sysfs tree under `root` ("/" on a machine): `root/sys/class/net/<kernelName>` and the
 * devices above it, and `root/sys/bus/pci/slots`.
 */
export async function netNames(root: string, kernelName: string): Promise<NetNames> {
  const props = await netId(root, kernelName);
  const names = {
    onboard: props.ID_NET_NAME_ONBOARD ?? null,
    slot: props.ID_NET_NAME_SLOT ?? null,
    path: props.ID_NET_NAME_PATH ?? null,
    mac: props.ID_NET_NAME_MAC ?? null,
    label: props.ID_NET_LABEL_ONBOARD ?? null,
  };
  const dev = await deviceAt(root, `/sys/class/net/${kernelName}`);
  const chosen = dev ? await chooseName(dev, names) : null;
  return { ...names, predictable: chosen === kernelName ? null : chosen };
}

async function chooseName(
  dev: SysDevice,
  names: Omit<NetNames, "predictable">,
): Promise<string | null> {
  const chain: SysDevice[] = [];
  for (let p: SysDevice | null = dev; p; p = await parentOf(p)) chain.push(p);
  const special = await specialName(dev, chain);
  if (special !== null) return special;

  const assignText = await attr(dev, "name_assign_type");
  // An unreadable name_assign_type (the kernel's "unknown", EINVAL) is 0 to udev.
  const assign = assignText === null ? 0 : (safeAtou(assignText) ?? 0);
  if (await usbOnPath(chain)) {
    // 73-usb-net-by-mac.link, Path=*-usb-*: NamePolicy=mac only.
    return ifnameValid(names.mac) ? names.mac : null;
  }
  // 99-default.link: NamePolicy=keep kernel database onboard slot path.
  if (assign === NET_NAME_USER || assign === NET_NAME_RENAMED) return null;
  if (assign === NET_NAME_PREDICTABLE) return null;
  for (const name of [names.onboard, names.slot, names.path]) {
    if (ifnameValid(name)) return name;
  }
  return null;
}

// ID_PATH (udev's path_id) has "-usb-" in it when a USB device is on the way to the PCI
// (or platform) controller, which is what 73-usb-net-by-mac.link's Path=*-usb-* matches.
async function usbOnPath(chain: readonly SysDevice[]): Promise<boolean> {
  for (const dev of chain.slice(1)) if ((await subsystemOf(dev)) === "usb") return true;
  return false;
}

// Debian 12's 73-special-net-names.rules (ACTION=="add", SUBSYSTEM=="net").
async function specialName(dev: SysDevice, chain: readonly SysDevice[]): Promise<string | null> {
  for (const parent of chain) {
    if ((await subsystemOf(parent)) !== "usb") continue;
    const usbId = `${await attr(parent, "idVendor")}:${await attr(parent, "idProduct")}`;
    if (usbId === "413c:a102") return "idrac";
    if (usbId === "04b3:0325") return "ibmimm";
  }
  for (const parent of chain) {
    if ((await attr(parent, "driver")) !== "ibmveth") continue;
    // The rule's shell: the folder after /vio/, without its first four characters and up
    // to four leading zeros, or 0.
    let d = dev.syspath.slice("/sys".length);
    const at = d.indexOf("/vio/");
    if (at >= 0) d = d.slice(at + "/vio/".length);
    d = d.split("/")[0] ?? "";
    d = d.length >= 4 ? d.slice(4) : d;
    for (let i = 0; i < 4 && d.startsWith("0"); i++) d = d.slice(1);
    return `ibmveth${d || "0"}`;
  }
  return null;
}
