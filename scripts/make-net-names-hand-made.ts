// Writes hardware/fixtures/net-names/hand-made/: a sysfs tree made by hand for the naming
// rules no QEMU 7.2 guest shows (SR-IOV, hotplug slots of bridges, port names, ARI, PCI
// domains, names too long, wireless, InfiniBand, USB NICs with a fixed MAC, the iDRAC,
// names userspace or the kernel gave, a VLAN). Its udevadm.txt is not a machine's: run
//   npx tsx scripts/make-net-names-hand-made.ts
//   npx tsx scripts/udevadm-chroot.ts --write hand-made
// and the host's udevadm, in a chroot over the tree, says what each interface is named.
import { mkdir, readdir, rm, symlink, writeFile } from "node:fs/promises";
import { dirname, join, relative } from "node:path";
import { repoRoot } from "../common/repo-root.ts";

const dest = join(repoRoot(), "hardware/fixtures/net-names/hand-made");
const sys = join(dest, "sys");

async function file(path: string, text: string | Buffer): Promise<void> {
  await mkdir(dirname(join(sys, path)), { recursive: true });
  await writeFile(join(sys, path), text);
}
async function link(path: string, target: string): Promise<void> {
  await mkdir(dirname(join(sys, path)), { recursive: true });
  await mkdir(join(sys, target), { recursive: true });
  await rm(join(sys, path), { force: true }); // the root hub, shared by two USB NICs
  await symlink(relative(dirname(join(sys, path)), join(sys, target)), join(sys, path));
}

/** A PCI function: config space whose header type says multi-function or not. */
async function pci(
  path: string,
  o: { multifunction?: boolean; bridge?: boolean; attrs?: Record<string, string> } = {},
): Promise<void> {
  const config = Buffer.alloc(64);
  config[0x0e] = (o.bridge ? 0x01 : 0x00) | (o.multifunction ? 0x80 : 0);
  await file(`${path}/config`, config);
  await file(`${path}/uevent`, `PCI_SLOT_NAME=${path.split("/").pop()}\n`);
  const cls = o.bridge ? "bc06sc04i00" : "bc02sc00i00";
  await file(`${path}/modalias`, `pci:v00008086d00001572sv00008086sd00000000${cls}\n`);
  await link(`${path}/subsystem`, "bus/pci");
  for (const [k, v] of Object.entries(o.attrs ?? {})) await file(`${path}/${k}`, `${v}\n`);
}

let nextIndex = 2;
/** An interface under device folder `parent`. */
async function net(
  name: string,
  parent: string,
  o: {
    mac?: string;
    addrAssign?: number;
    nameAssign?: number | null;
    type?: number;
    devtype?: string;
    devPort?: number;
    physPortName?: string;
    iflink?: number;
  } = {},
): Promise<void> {
  const ifindex = nextIndex++;
  const dir = `${parent}/net/${name}`;
  const devtype = o.devtype ? `DEVTYPE=${o.devtype}\n` : "";
  await file(`${dir}/uevent`, `${devtype}INTERFACE=${name}\nIFINDEX=${ifindex}\n`);
  await file(`${dir}/ifindex`, `${ifindex}\n`);
  await file(`${dir}/iflink`, `${o.iflink ?? ifindex}\n`);
  await file(`${dir}/type`, `${o.type ?? 1}\n`);
  const mac = o.mac ?? `52:54:00:00:00:${ifindex.toString(16).padStart(2, "0")}`;
  await file(`${dir}/address`, `${mac}\n`);
  await file(`${dir}/addr_assign_type`, `${o.addrAssign ?? 0}\n`);
  if (o.nameAssign !== null) await file(`${dir}/name_assign_type`, `${o.nameAssign ?? 1}\n`);
  await file(`${dir}/dev_port`, `${o.devPort ?? 0}\n`);
  if (o.physPortName !== undefined) await file(`${dir}/phys_port_name`, `${o.physPortName}\n`);
  await link(`${dir}/subsystem`, "class/net");
  await link(`${dir}/device`, parent);
  await link(`class/net/${name}`, dir);
}

async function slot(number: string, address: string): Promise<void> {
  await file(`bus/pci/slots/${number}/address`, `${address}\n`);
}

/** A USB device and its interface, under a PCI xHCI controller. */
async function usb(
  controller: string,
  device: string,
  iface: string,
  ids: { vendor: string; product: string },
): Promise<string> {
  const dev = `${controller}/usb1/${device}`;
  await file(`${controller}/usb1/uevent`, "DEVTYPE=usb_device\n");
  await link(`${controller}/usb1/subsystem`, "bus/usb");
  await file(`${dev}/uevent`, "DEVTYPE=usb_device\n");
  await file(`${dev}/idVendor`, `${ids.vendor}\n`);
  await file(`${dev}/idProduct`, `${ids.product}\n`);
  await link(`${dev}/subsystem`, "bus/usb");
  const intf = `${dev}/${iface}`;
  await file(`${intf}/uevent`, "DEVTYPE=usb_interface\n");
  await link(`${intf}/subsystem`, "bus/usb");
  return intf;
}

await rm(dest, { recursive: true, force: true });
const root = "devices/pci0000:00";
await file(`${root}/uevent`, "");
await file("bus/pci/drivers_autoprobe", "1\n");

// An SR-IOV card in hotplug slot 4 (pciehp: the slot's address is the card's): two
// functions with port names and SMBIOS indexes and labels, and a virtual function of the
// first.
const port4 = `${root}/0000:00:03.0`;
await pci(port4, { bridge: true });
const pf0 = `${port4}/0000:3b:00.0`;
const pf1 = `${port4}/0000:3b:00.1`;
const vf0 = `${port4}/0000:3b:02.0`;
await pci(pf0, { multifunction: true, attrs: { index: "1", label: "Embedded NIC 1" } });
await pci(pf1, { multifunction: true, attrs: { index: "2", label: "Embedded NIC 2" } });
await pci(vf0);
await link(`${pf0}/virtfn0`, vf0);
await link(`${vf0}/physfn`, pf0);
await slot("4", "0000:3b:00");
await net("eth0", pf0, { physPortName: "p0" });
await net("eth1", pf1, { physPortName: "p1" });
await net("eth2", vf0, { addrAssign: 1 });

// Hotplug slots of bridges (acpiphp: the slot's address is the bridge's): a one-function
// card gets no slot name, a two-function card does.
const br7 = `${root}/0000:00:1c.0`;
const br8 = `${root}/0000:00:1d.0`;
await pci(br7, { bridge: true });
await pci(br8, { bridge: true });
await pci(`${br7}/0000:05:00.0`);
await pci(`${br8}/0000:06:00.0`, { multifunction: true });
await pci(`${br8}/0000:06:00.1`, { multifunction: true });
await slot("7", "0000:00:1c");
await slot("8", "0000:00:1d");
await net("eth3", `${br7}/0000:05:00.0`);
await net("eth4", `${br8}/0000:06:00.0`);
await net("eth5", `${br8}/0000:06:00.1`);

// A second PCI domain, ARI, a name of 16 characters, dev_port, ACPI index 0 and one past
// 16 bits, slot folders udev cannot read as a number.
const dom1 = "devices/pci0001:80";
await file(`${dom1}/uevent`, "");
await pci(`${dom1}/0001:80:02.0`, { bridge: true });
await pci(`${dom1}/0001:80:02.0/0001:81:00.1`, { multifunction: true });
await net("eth6", `${dom1}/0001:80:02.0/0001:81:00.1`, { physPortName: "p10" });
await pci(`${root}/0000:00:04.0`, { bridge: true });
await pci(`${root}/0000:00:04.0/0000:82:01.2`, { attrs: { ari_enabled: "1" } });
await net("eth7", `${root}/0000:00:04.0/0000:82:01.2`);
await pci(`${root}/0000:00:05.0`, { attrs: { acpi_index: "0" } });
await net("eth8", `${root}/0000:00:05.0`, { devPort: 1 });
await pci(`${root}/0000:00:06.0`, { attrs: { acpi_index: "65536" } });
await net("eth9", `${root}/0000:00:06.0`);
await slot("0", "0000:00:06");
await slot("6-1", "0000:00:06");

// Wireless, InfiniBand, a VLAN-like stacked link, names the kernel or userspace gave.
await pci(`${root}/0000:00:07.0`);
await net("wlan0", `${root}/0000:00:07.0`, { devtype: "wlan" });
await pci(`${root}/0000:00:08.0`);
await net("ib0", `${root}/0000:00:08.0`, {
  type: 32,
  mac: "80:00:02:08:fe:80:00:00:00:00:00:00:00:02:c9:03:00:0a:0b:0c",
});
await pci(`${root}/0000:00:09.0`);
await net("eth10", `${root}/0000:00:09.0`, { iflink: 1 });
await pci(`${root}/0000:00:0a.0`);
await net("uplink", `${root}/0000:00:0a.0`, { nameAssign: 3 });
await pci(`${root}/0000:00:0b.0`);
await net("eth11", `${root}/0000:00:0b.0`, { nameAssign: 2 });
await pci(`${root}/0000:00:0c.0`);
await net("eth12", `${root}/0000:00:0c.0`, { nameAssign: null });

// USB NICs on an xHCI controller: one with a fixed MAC behind a hub, in configuration 2;
// the Dell iDRAC's.
const xhci = `${root}/0000:00:14.0`;
await pci(xhci);
const a = await usb(xhci, "1-3.2", "1-3.2:2.0", { vendor: "0b95", product: "1790" });
await net("eth13", a, { mac: "00:11:22:33:44:aa" });
const idrac = await usb(xhci, "1-4", "1-4:1.0", { vendor: "413c", product: "a102" });
await net("usb0", idrac, { addrAssign: 3 });

// Git keeps no empty folder: the targets of subsystem links get a .keep.
async function keepEmpty(dir: string): Promise<void> {
  const names = await readdir(dir, { withFileTypes: true });
  if (names.length === 0) await writeFile(join(dir, ".keep"), "");
  for (const d of names) if (d.isDirectory()) await keepEmpty(join(dir, d.name));
}
await keepEmpty(sys);

await writeFile(
  join(dest, "README.md"),
  "# hand-made\n\nA sysfs tree made by hand (scripts/make-net-names-hand-made.ts), not captured " +
    "on a machine: the naming rules no QEMU 7.2 guest shows. udevadm.txt is the host's " +
    "udevadm run by scripts/udevadm-chroot.ts in a chroot over this tree.\n",
);
console.log(`wrote ${dest}`);
