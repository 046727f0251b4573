import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import type { Alias } from "../../formats/boot-modules.ts";
import { parsePciIds } from "../../formats/pci-ids.ts";
import { pciPatternOf, trimPciNames } from "./pci-names.ts";

// An excerpt of Debian 12's pci.ids.
const FULL = parsePciIds(
  readFileSync(new URL("../../hwreport/fixtures/pci.ids", import.meta.url), "utf8"),
);

describe("pciPatternOf", () => {
  it("reads the vendor, device and class a modules.alias pattern binds", () => {
    expect(pciPatternOf("pci:v00001000d00000079sv*sd*bc*sc*i*")).toEqual({
      vendor: "1000",
      device: "0079",
      classCode: null,
    });
    expect(pciPatternOf("pci:v*d*sv*sd*bc01sc08i02*")).toEqual({
      vendor: null,
      device: null,
      classCode: "0108",
    });
    expect(pciPatternOf("pci:v00001AF4d*sv*sd*bc*sc*i*")).toEqual({
      vendor: "1af4",
      device: null,
      classCode: null,
    });
    expect(pciPatternOf("pci:v00008086d*sv00001028sd*bc01sc04i00*")).toEqual({
      vendor: "8086",
      device: null,
      classCode: "0104",
    });
    expect(pciPatternOf("usb:v0781p5583d*dc*dsc*dp*ic08isc06ip50in*")).toBeNull();
  });
});

describe("trimPciNames", () => {
  // Aliases as Debian 6.1's modules.alias has them for these drivers.
  const aliases: Alias[] = [
    ["pci:v00001000d00000079sv*sd*bc*sc*i*", "megaraid_sas"],
    ["pci:v00001000d0000005Dsv*sd*bc*sc*i*", "megaraid_sas"],
    ["pci:v00008086d000010D3sv*sd*bc*sc*i*", "e1000e"],
    ["pci:v*d*sv*sd*bc01sc08i02*", "nvme"],
    ["pci:v*d*sv*sd*bc0Csc03i30*", "xhci_pci"],
    ["pci:v00001AF4d*sv*sd*bc*sc*i*", "virtio_pci"],
    ["usb:v*p*d*dc*dsc*dp*ic08isc06ip50in*", "usb_storage"],
  ];
  const trimmed = trimPciNames(FULL, aliases, new Set(["megaraid_sas", "nvme"]));

  it("keeps every vendor", () => {
    expect(trimmed.vendors).toEqual(FULL.vendors);
  });

  it("keeps the devices a driver binds by id, every device of a vendor a driver binds whole, and the devices whose names fit a class a driver binds", () => {
    expect(Object.keys(trimmed.devices).sort()).toEqual([
      "1000:005d",
      "1000:0079",
      "144d:a808", // NVMe SSD Controller: class 01 08
      "1af4:1000", // virtio_pci binds all of 1af4
      "1af4:1001",
      "1af4:1041",
      "1af4:1042",
      "1b36:000d", // QEMU XHCI Host Controller: class 0c 03
      "1b36:0010", // QEMU NVM Express Controller
      "8086:10d3",
      "8086:a36d", // Cannon Lake PCH USB 3.1 xHCI Host Controller
    ]);
    // No driver here binds a SATA controller or a root port.
    expect(trimmed.devices["8086:2922"]).toBeUndefined();
    expect(trimmed.devices["8086:a330"]).toBeUndefined();
  });

  it("keeps the subsystems of the storage drivers' devices only", () => {
    expect(trimmed.subsystems).toEqual({
      "1000:005d:1028:1f47": "PERC H730P Mini",
      "1000:0079:1028:1f17": "PERC H700 Integrated",
      "144d:a808:144d:a801": "SSD 970 EVO",
    });
  });
});
