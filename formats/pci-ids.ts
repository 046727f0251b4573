// PCI vendor, device and subsystem names in the PCI ID database's text format (pci.ids, as
// Debian's pci.ids package and hwdata ship it), and a device's ids as its modalias gives
// them. The stick carries a trimmed pci.ids (image-build/inputs/pci-names.ts); the
// hardware report names a disk's or NIC's controller with either.

/** The stick's trimmed database, beside the bundle that reads it (/usr/lib/liken-stick/). */
export const STICK_PCI_IDS = "pci.ids";

/**
 * Names by id, every id 4 lower-case hex digits: `vendors["1000"]`, `devices["1000:0079"]`,
 * `subsystems["1000:0079:1028:1f17"]` (the device, then the subsystem's vendor and device).
 */
export interface PciNames {
  readonly vendors: Readonly<Record<string, string>>;
  readonly devices: Readonly<Record<string, string>>;
  readonly subsystems: Readonly<Record<string, string>>;
}

export const NO_PCI_NAMES: PciNames = { vendors: {}, devices: {}, subsystems: {} };

/** A PCI function's ids, 4 lower-case hex digits each. */
export interface PciIds {
  readonly vendor: string;
  readonly device: string;
  readonly subsystemVendor: string;
  readonly subsystemDevice: string;
}

const HEX4 = /^[0-9a-f]{4}$/;

/**
 * Parses pci.ids: vendor lines `vvvv  name`, device lines `\tdddd  name`, subsystem lines
 * `\t\tssss ssss  name`, comments `#`; it stops at the class section (`C cc  name`), whose
 * indented lines would otherwise read as devices. A line of another shape is skipped.
 */
export function parsePciIds(text: string): PciNames {
  const out: Writable = { vendors: {}, devices: {}, subsystems: {} };
  let vendor: string | null = null;
  let device: string | null = null;
  for (let pos = 0; pos < text.length; ) {
    let end = text.indexOf("\n", pos);
    if (end < 0) end = text.length;
    const line = text.slice(pos, text.charCodeAt(end - 1) === 13 ? end - 1 : end);
    pos = end + 1;
    if (line === "" || line.startsWith("#")) continue;
    if (line.startsWith("C ")) break;
    if (line.startsWith("\t\t")) {
      const m = /^\t\t([0-9a-f]{4}) ([0-9a-f]{4}) +(\S.*)$/.exec(line);
      if (m && vendor && device) out.subsystems[`${vendor}:${device}:${m[1]}:${m[2]}`] = name(m[3]);
    } else if (line.startsWith("\t")) {
      const m = /^\t([0-9a-f]{4}) +(\S.*)$/.exec(line);
      device = m && vendor ? m[1]! : null;
      if (m && vendor) out.devices[`${vendor}:${m[1]}`] = name(m[2]);
    } else {
      const m = /^([0-9a-f]{4}) +(\S.*)$/.exec(line);
      vendor = m ? m[1]! : null;
      device = null;
      if (m) out.vendors[m[1]!] = name(m[2]);
    }
  }
  return out;
}

interface Writable {
  vendors: Record<string, string>;
  devices: Record<string, string>;
  subsystems: Record<string, string>;
}

const name = (s: string | undefined) => (s ?? "").trimEnd();

/**
 * The names of `ids` only, as parsePciIds would give them: each line is found by searching
 * the text for it, so naming a machine's few controllers does not walk the whole 1.3 MB
 * (a walk takes 27 ms on the project's machine, these searches 2).
 */
export function lookupPciNames(text: string, ids: Iterable<PciIds>): PciNames {
  const out: Writable = { vendors: {}, devices: {}, subsystems: {} };
  // The class section's lines start with `C ` or a tab: no search below reaches into it.
  const classes = text.indexOf("\nC ");
  const limit = classes < 0 ? text.length : classes;
  const vendorAt = new Map<string, number>();
  const vendor = (id: string): number => {
    let at = vendorAt.get(id);
    if (at === undefined) {
      at = HEX4.test(id) ? lineAt(text, `${id} `, 0, limit) : -1;
      vendorAt.set(id, at);
      const line = at < 0 ? null : /^[0-9a-f]{4} +(\S.*)$/.exec(lineFrom(text, at));
      if (line) out.vendors[id] = name(line[1]);
    }
    return at;
  };
  for (const i of ids) {
    vendor(i.subsystemVendor);
    const v = vendor(i.vendor);
    if (v < 0 || !HEX4.test(i.device)) continue;
    const block = nextLine(text, v, /\n(?:[0-9a-f]{4} |C )/g, limit);
    const d = lineAt(text, `\t${i.device} `, v, block);
    const device = d < 0 ? null : /^\t[0-9a-f]{4} +(\S.*)$/.exec(lineFrom(text, d));
    if (!device) continue;
    const key = `${i.vendor}:${i.device}`;
    out.devices[key] = name(device[1]);
    if (!HEX4.test(i.subsystemVendor) || !HEX4.test(i.subsystemDevice)) continue;
    const subsystems = nextLine(text, d, /\n(?:\t[0-9a-f]{4} |[0-9a-f]{4} |C )/g, block);
    const s = lineAt(text, `\t\t${i.subsystemVendor} ${i.subsystemDevice} `, d, subsystems);
    const subsystem =
      s < 0 ? null : /^\t\t[0-9a-f]{4} [0-9a-f]{4} +(\S.*)$/.exec(lineFrom(text, s));
    if (subsystem)
      out.subsystems[`${key}:${i.subsystemVendor}:${i.subsystemDevice}`] = name(subsystem[1]);
  }
  return out;
}

/** Where the first line that starts with `start` begins, at or after `from` and before `to`; -1 if none. */
function lineAt(text: string, start: string, from: number, to: number): number {
  if (from === 0 && text.startsWith(start)) return 0;
  const at = text.indexOf(`\n${start}`, from);
  return at < 0 || at >= to ? -1 : at + 1;
}

/** Where the next line `pattern` (a global regex starting with `\n`) matches begins after `from`, or `to`. */
function nextLine(text: string, from: number, pattern: RegExp, to: number): number {
  pattern.lastIndex = from;
  const m = pattern.exec(text);
  return m === null || m.index >= to ? to : m.index + 1;
}

function lineFrom(text: string, at: number): string {
  const end = text.indexOf("\n", at);
  const line = text.slice(at, end < 0 ? text.length : end);
  return line.endsWith("\r") ? line.slice(0, -1) : line;
}

/**
 * `names` as pci.ids text after `header` (comment lines, each ending in a newline): vendors,
 * devices and subsystems in id order, so the same names give the same bytes.
 */
export function formatPciIds(names: PciNames, header: string): string {
  // Keys of a device or a subsystem start with their parent's: `1000`, `1000:0079`.
  const children = (keys: readonly string[], parent: number) => {
    const by = new Map<string, string[]>();
    for (const key of [...keys].sort()) {
      const list = by.get(key.slice(0, parent)) ?? [];
      list.push(key);
      by.set(key.slice(0, parent), list);
    }
    return by;
  };
  const devices = children(Object.keys(names.devices), 4);
  const subsystems = children(Object.keys(names.subsystems), 9);
  const lines: string[] = [];
  for (const vendor of Object.keys(names.vendors).sort()) {
    lines.push(`${vendor}  ${names.vendors[vendor]}`);
    for (const device of devices.get(vendor) ?? []) {
      lines.push(`\t${device.slice(5)}  ${names.devices[device]}`);
      for (const s of subsystems.get(device) ?? [])
        lines.push(`\t\t${s.slice(10, 14)} ${s.slice(15)}  ${names.subsystems[s]}`);
    }
  }
  return `${header}${lines.join("\n")}\n`;
}

/** The comment lines pci.ids starts with (its version, date, maintainers and licence). */
export function pciIdsHeader(text: string): string {
  return /^(?:#[^\n]*\n)*/.exec(text)?.[0] ?? "";
}

/** The ids in a PCI modalias, `pci:v00001000d00000079sv00001028sd00001F17bc01sc04i00`. */
export function pciIdsOfModalias(modalias: string | null): PciIds | null {
  const m =
    /^pci:v0000([0-9A-Fa-f]{4})d0000([0-9A-Fa-f]{4})sv0000([0-9A-Fa-f]{4})sd0000([0-9A-Fa-f]{4})/.exec(
      modalias ?? "",
    );
  if (!m) return null;
  const [, vendor, device, subsystemVendor, subsystemDevice] = m.map((s) => s.toLowerCase());
  return {
    vendor: vendor!,
    device: device!,
    subsystemVendor: subsystemVendor!,
    subsystemDevice: subsystemDevice!,
  };
}

/** What the names say of one device; a subsystem reads as lspci prints it, its vendor first. */
export function namePciDevice(
  names: PciNames,
  ids: PciIds,
): { vendor: string | null; device: string | null; subsystem: string | null } {
  const device = `${ids.vendor}:${ids.device}`;
  const subsystem = names.subsystems[`${device}:${ids.subsystemVendor}:${ids.subsystemDevice}`];
  const subsystemVendor = names.vendors[ids.subsystemVendor];
  return {
    vendor: names.vendors[ids.vendor] ?? null,
    device: names.devices[device] ?? null,
    subsystem:
      subsystem === undefined
        ? null
        : subsystemVendor === undefined
          ? subsystem
          : `${subsystemVendor} ${subsystem}`,
  };
}
