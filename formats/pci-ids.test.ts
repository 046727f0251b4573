import { readFileSync } from "node:fs";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { SUITE_SEED } from "../test/fuzz.ts";
import {
  formatPciIds,
  lookupPciNames,
  namePciDevice,
  type PciIds,
  parsePciIds,
  pciIdsHeader,
  pciIdsOfModalias,
} from "./pci-ids.ts";

// An excerpt of Debian 12's pci.ids: its header, a few vendors, and the class section's start.
const TEXT = readFileSync(new URL("../hwreport/fixtures/pci.ids", import.meta.url), "utf8");

const ids = (vendor: string, device: string, sv = "0000", sd = "0000"): PciIds => ({
  vendor,
  device,
  subsystemVendor: sv,
  subsystemDevice: sd,
});

describe("parsePciIds", () => {
  const names = parsePciIds(TEXT);

  it("reads vendors, devices and subsystems, each under the line above it", () => {
    expect(names.vendors["1000"]).toBe("Broadcom / LSI");
    expect(names.devices["1000:0079"]).toBe("MegaRAID SAS 2108 [Liberator]");
    expect(names.subsystems["1000:0079:1028:1f17"]).toBe("PERC H700 Integrated");
    expect(names.devices["8086:2922"]).toBe(
      "82801IR/IO/IH (ICH9R/DO/DH) 6 port SATA Controller [AHCI mode]",
    );
    expect(Object.keys(names.vendors).sort()).toEqual([
      "01de",
      "1000",
      "1028",
      "144d",
      "1af4",
      "1b36",
      "8086",
    ]);
  });

  it("stops at the class section, whose indented lines are classes, not devices", () => {
    const extra = `${TEXT}\t0001  not a device\n`;
    expect(parsePciIds(extra)).toEqual(names);
    expect(Object.values(names.devices)).not.toContain("SCSI storage controller");
    // A class section without the `C` line's guard would have its lines read as the last vendor's.
    expect(
      parsePciIds("8086  Intel Corporation\nC 01  Mass storage controller\n\t0106  SATA\n"),
    ).toEqual({ vendors: { "8086": "Intel Corporation" }, devices: {}, subsystems: {} });
  });

  it("skips comments, blank lines, CRs and lines of another shape", () => {
    expect(
      parsePciIds(
        [
          "# comment",
          "",
          "\tabcd  a device before any vendor",
          "1af4  Red Hat, Inc.\r",
          "\t1001  Virtio block device  ",
          "\t\t01de fffa  Propolis Virtio block device",
          "\tzz  not hex",
          "\t\t0000 0000  under no device",
          "XYZ  not a vendor",
          "\t1000  under no vendor",
        ].join("\n"),
      ),
    ).toEqual({
      vendors: { "1af4": "Red Hat, Inc." },
      devices: { "1af4:1001": "Virtio block device" },
      subsystems: { "1af4:1001:01de:fffa": "Propolis Virtio block device" },
    });
  });
});

describe("lookupPciNames", () => {
  const all = parsePciIds(TEXT);

  it("gives the names of the ids asked for, and only those", () => {
    expect(
      lookupPciNames(TEXT, [
        ids("1000", "0079", "1028", "1f17"),
        ids("8086", "10d3", "8086", "0000"),
      ]),
    ).toEqual({
      vendors: { "1000": "Broadcom / LSI", "1028": "Dell", "8086": "Intel Corporation" },
      devices: {
        "1000:0079": "MegaRAID SAS 2108 [Liberator]",
        "8086:10d3": "82574L Gigabit Network Connection",
      },
      subsystems: { "1000:0079:1028:1f17": "PERC H700 Integrated" },
    });
  });

  it("finds a device under its own vendor only, and a subsystem under its own device only", () => {
    // 1000 is a vendor and a device of 1af4; 1af4 1100 is a subsystem of two devices.
    expect(lookupPciNames(TEXT, [ids("8086", "1000")]).devices).toEqual({});
    expect(lookupPciNames(TEXT, [ids("1b36", "0010", "1af4", "1100")]).subsystems).toEqual({});
    expect(lookupPciNames(TEXT, [ids("1b36", "0100", "1af4", "1100")]).subsystems).toEqual({
      "1b36:0100:1af4:1100": "QEMU Virtual Machine",
    });
  });

  it("names what parsePciIds names, for any ids", () => {
    // Ids the excerpt holds, as vendors, devices and subsystems, or not at all.
    const held = [
      ...Object.keys(all.vendors),
      ...Object.keys(all.devices).map((k) => k.slice(5)),
      ...["1100", "1f17", "a801"],
    ];
    const hex = fc.oneof(fc.constantFrom(...held), fc.stringMatching(/^[0-9a-f]{4}$/));
    fc.assert(
      fc.property(fc.array(fc.tuple(hex, hex, hex, hex), { maxLength: 6 }), (tuples) => {
        const asked = tuples.map(([v, d, sv, sd]) => ids(v, d, sv, sd));
        const found = lookupPciNames(TEXT, asked);
        for (const i of asked) expect(namePciDevice(found, i)).toEqual(namePciDevice(all, i));
      }),
      { seed: SUITE_SEED },
    );
    const every = [...Object.keys(all.devices), ...Object.keys(all.subsystems)].map((k) => {
      const [v = "", d = "", sv = "0000", sd = "0000"] = k.split(":");
      return ids(v, d, sv, sd);
    });
    expect(lookupPciNames(TEXT, every)).toEqual(all);
  });

  it("ignores ids that are not 4 lower-case hex digits", () => {
    expect(lookupPciNames(TEXT, [ids("8086 ", "10D3"), ids("", "")])).toEqual({
      vendors: {},
      devices: {},
      subsystems: {},
    });
  });
});

describe("formatPciIds", () => {
  it("writes names that parse back to themselves, in id order, after the header", () => {
    const names = parsePciIds(TEXT);
    const text = formatPciIds(names, pciIdsHeader(TEXT));
    expect(parsePciIds(text)).toEqual(names);
    expect(text.startsWith("#\n#\tList of PCI ID's\n#\n#\tVersion: 2023.04.10\n")).toBe(true);
    expect(text).toContain(
      "1000  Broadcom / LSI\n\t005d  MegaRAID SAS-3 3108 [Invader]\n\t\t1028 1f47  PERC H730P Mini\n\t0079  ",
    );
    expect(formatPciIds(names, "")).toBe(formatPciIds(parsePciIds(formatPciIds(names, "")), ""));
  });
});

describe("a device's ids and names", () => {
  it("reads the ids of a PCI modalias, in lower case; null for another bus", () => {
    expect(pciIdsOfModalias("pci:v00001000d00000079sv00001028sd00001F17bc01sc04i00")).toEqual(
      ids("1000", "0079", "1028", "1f17"),
    );
    expect(pciIdsOfModalias("usb:v0781p5583d0100dc00dsc00dp00ic08isc06ip50in00")).toBeNull();
    expect(pciIdsOfModalias(null)).toBeNull();
  });

  it("names the subsystem as lspci does, its vendor first", () => {
    const names = parsePciIds(TEXT);
    expect(namePciDevice(names, ids("1000", "0079", "1028", "1f17"))).toEqual({
      vendor: "Broadcom / LSI",
      device: "MegaRAID SAS 2108 [Liberator]",
      subsystem: "Dell PERC H700 Integrated",
    });
    expect(namePciDevice(names, ids("144d", "a80a", "144d", "a801"))).toEqual({
      vendor: "Samsung Electronics Co Ltd",
      device: null,
      subsystem: null,
    });
    expect(namePciDevice(names, ids("abcd", "0001"))).toEqual({
      vendor: null,
      device: null,
      subsystem: null,
    });
  });
});
