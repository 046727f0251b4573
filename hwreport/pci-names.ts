// Where the report's PCI names come from: the machine's own pci.ids where it has one (a
// host), else the trimmed one beside the bundle (the stick's /usr/lib/liken-stick/, built by
// image-build/inputs/pci-names.ts), else the copy a stick build left in the checkout's
// dist/. Read once, and only when the report names a controller; a lookup searches the text
// for the few lines it needs rather than parsing it all (formats/pci-ids.ts).
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { orNull } from "../common/or-null.ts";
import {
  lookupPciNames,
  NO_PCI_NAMES,
  type PciIds,
  type PciNames,
  STICK_PCI_IDS,
} from "../formats/pci-ids.ts";

/** Where a pci.ids may be, in the order they are tried. */
export function pciIdsFiles(): string[] {
  return [
    "/usr/share/misc/pci.ids", // Debian's and Ubuntu's pci.ids package
    "/usr/share/hwdata/pci.ids", // Fedora's, Arch's and SUSE's hwdata
    // Beside the bundle (import.meta.url is the bundle's own): the stick, or dist/ on a host.
    fileURLToPath(new URL(STICK_PCI_IDS, import.meta.url)),
    // From the sources (hwreport/), the copy in the checkout's dist/.
    fileURLToPath(new URL(`../dist/${STICK_PCI_IDS}`, import.meta.url)),
  ];
}

let text: string | null | undefined;

/** The names of `ids` from the first pci.ids found; none where there is none. */
export function systemPciNames(ids: readonly PciIds[]): PciNames {
  if (ids.length === 0) return NO_PCI_NAMES;
  if (text === undefined) text = readFirst(pciIdsFiles());
  return text === null ? NO_PCI_NAMES : lookupPciNames(text, ids);
}

function readFirst(files: readonly string[]): string | null {
  for (const file of files) {
    const found = orNull(() => readFileSync(file, "utf8"));
    if (found !== null) return found;
  }
  return null;
}
