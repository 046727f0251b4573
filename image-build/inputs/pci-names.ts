// The PCI names the stick carries for the hardware report (formats/pci-ids.ts): the pinned
// pci.ids (Debian 12's pci.ids package) is 1.3 MB, and the report names only the controllers
// of disks and NICs, which the stick's own drivers must bind to be seen at all. So the table
// keeps every vendor's name, the devices those drivers' PCI aliases bind, and the
// subsystems (the card as its maker sells it: a Dell PERC H730P is a MegaRAID SAS-3 3108)
// of the storage drivers' devices.
import { randomBytes } from "node:crypto";
import { mkdir, readFile, rename, writeFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import { repoRoot } from "../../common/repo-root.ts";
import type { Alias } from "../../formats/boot-modules.ts";
import {
  formatPciIds,
  type PciNames,
  parsePciIds,
  pciIdsHeader,
  STICK_PCI_IDS,
} from "../../formats/pci-ids.ts";
import { allDriversUnder, readModuleIndex, stickModules } from "./modules.ts";

/** Where the pci.ids package puts the database. */
const PCI_IDS_PATH = "usr/share/misc/pci.ids";

/** The storage drivers, whose devices keep their subsystems' names. */
const CARD_DRIVER_PREFIXES = [
  "kernel/drivers/ata/",
  "kernel/drivers/scsi/",
  "kernel/drivers/nvme/",
  "kernel/drivers/block/",
];

/**
 * Words the names of a PCI class's devices carry, for drivers that bind a class rather than
 * devices (nvme, ahci, the USB host controllers): pci.ids gives no device's class, and the
 * names are what is left. A name kept by mistake is still right for its id; one missed
 * reads as its vendor's name.
 */
const CLASS_WORDS: Readonly<Record<string, RegExp>> = {
  "0101": /\b(IDE|PATA|ATA)\b/i,
  "0104": /\bRAID\b|Smart Array/i,
  "0106": /\bS?ATA\b|AHCI/i,
  "0108": /NVMe|NVM Express|Non-Volatile|\bSSD\b/i,
  "0c03": /\bUSB\b|\b[EOUX]HCI\b/i,
};

/** What a `pci:` alias pattern of modules.alias binds; null for a field it leaves open. */
export interface PciPattern {
  readonly vendor: string | null;
  readonly device: string | null;
  /** Base class and subclass, `0108`. */
  readonly classCode: string | null;
}

/** `pci:v00008086d000010D3sv*sd*bc*sc*i*` -> vendor 8086, device 10d3; null for another bus. */
export function pciPatternOf(pattern: string): PciPattern | null {
  const m =
    /^pci:v(?:0000([0-9A-Fa-f]{4})|\*)d(?:0000([0-9A-Fa-f]{4})|\*)sv[^s]*sd[^b]*bc([0-9A-Fa-f]{2}|\*)sc([0-9A-Fa-f]{2}|\*)/.exec(
      pattern,
    );
  if (!m) return null;
  const [, vendor, device, base, sub] = m;
  return {
    vendor: vendor?.toLowerCase() ?? null,
    device: device?.toLowerCase() ?? null,
    classCode: base === "*" || sub === "*" ? null : `${base}${sub}`.toLowerCase(),
  };
}

/**
 * Whether `pattern` binds the device `key` (`vvvv:dddd`) called `name`: its ids, or, for a
 * pattern that leaves one open, a name that fits the class it binds (every device of the
 * vendor when it binds no class: virtio_pci binds all of Red Hat's 1af4).
 */
function binds(pattern: PciPattern, key: string, name: string): boolean {
  const [vendor, device] = key.split(":");
  if (pattern.vendor !== null && pattern.vendor !== vendor) return false;
  if (pattern.device !== null && pattern.device !== device) return false;
  if (pattern.vendor !== null && pattern.device !== null) return true;
  if (pattern.classCode === null) return pattern.vendor !== null || pattern.device !== null;
  return CLASS_WORDS[pattern.classCode]?.test(name) ?? false;
}

/**
 * The names `aliases` (those of the modules the stick carries) can ever need: every vendor,
 * each device a pattern binds, and the subsystems of the devices that `cards` (module
 * names) bind.
 */
export function trimPciNames(
  full: PciNames,
  aliases: readonly Alias[],
  cards: ReadonlySet<string>,
): PciNames {
  const patterns = aliases.flatMap(([pattern, module]) => {
    const p = pciPatternOf(pattern);
    return p ? [{ ...p, card: cards.has(module) }] : [];
  });
  const exact = new Map<string, boolean>();
  for (const p of patterns)
    if (p.vendor !== null && p.device !== null) {
      const key = `${p.vendor}:${p.device}`;
      exact.set(key, (exact.get(key) ?? false) || p.card);
    }
  const open = patterns.filter((p) => p.vendor === null || p.device === null);
  const devices: Record<string, string> = {};
  const withSubsystems = new Set<string>();
  for (const [key, name] of Object.entries(full.devices)) {
    const card = exact.get(key);
    const matching = open.filter((p) => binds(p, key, name));
    if (card === undefined && matching.length === 0) continue;
    devices[key] = name;
    if (card || matching.some((p) => p.card)) withSubsystems.add(key);
  }
  const subsystems: Record<string, string> = {};
  for (const [key, name] of Object.entries(full.subsystems))
    if (withSubsystems.has(key.slice(0, 9))) subsystems[key] = name;
  return { vendors: { ...full.vendors }, devices, subsystems };
}

/**
 * The stick's trimmed pci.ids, from the unpacked inputs (`root`: the pci.ids package and the
 * kernel's modules).
 */
export async function stickPciIds(root: string): Promise<string> {
  const text = await readFile(join(root, PCI_IDS_PATH), "utf8");
  const index = await readModuleIndex(root);
  const carried = new Set(stickModules(index));
  const cards = new Set(allDriversUnder(index, CARD_DRIVER_PREFIXES).filter((m) => carried.has(m)));
  const aliases = index.aliases.filter(([, module]) => carried.has(module));
  return formatPciIds(
    trimPciNames(parsePciIds(text), aliases, cards),
    `${pciIdsHeader(text)}# Trimmed by liken-stick's image build to what the stick's hardware report can name:
# every vendor, the devices the stick's drivers bind, and the subsystems of its storage
# drivers' devices. Debian's pci.ids package holds the whole database.

`,
  );
}

/**
 * Writes the stick's pci.ids to `file`, and a copy beside dist/liken-stick.cjs: there the
 * report run from this checkout finds it on a host without a pci.ids of its own
 * (hwreport/pci-names.ts).
 */
export async function writeStickPciIds(root: string, file: string): Promise<void> {
  const text = await stickPciIds(root);
  await writeFile(file, text);
  // Renamed into place: builds side by side never read a half-written copy.
  const copy = join(repoRoot(), "dist", STICK_PCI_IDS);
  await mkdir(dirname(copy), { recursive: true });
  const temporary = `${copy}.${process.pid}-${randomBytes(4).toString("hex")}`;
  await writeFile(temporary, text);
  await rename(temporary, copy);
}
