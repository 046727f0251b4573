// The option-ROM finding over the captured logs (hardware/fixtures/tpm/): QEMU's virtio-net
// at 00:03.0 with its efi-virtio.rom, which OVMF runs, and the same NIC without a ROM; the
// device named from sysfs (a reader over a map, as the guest's sysfs had it) and pci.ids.
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { lookupPciNames, NO_PCI_NAMES } from "../../formats/pci-ids.ts";
import { devicePathNodes, devicePathText } from "./device-path.ts";
import { parseEventLog } from "./event-log.ts";
import {
  type OptionRomFinding,
  optionRomFinding,
  optionRomPaths,
  optionRomWords,
  pciAddress,
  type SysfsReader,
} from "./option-roms.ts";

const log = (name: string) =>
  parseEventLog(readFileSync(new URL(`../fixtures/tpm/${name}`, import.meta.url)));
const pciIds = readFileSync(new URL("../../hwreport/fixtures/pci.ids", import.meta.url), "utf8");
const names = (ids: Parameters<typeof lookupPciNames>[1]) => lookupPciNames(pciIds, ids);

/** sysfs as a map: a folder is the list of its names, a file its text, a link `-> target`. */
function sysfs(tree: Record<string, string | readonly string[]>): SysfsReader {
  return {
    list: (p) => {
      const v = tree[p];
      return Array.isArray(v) ? v : [];
    },
    text: (p) => {
      const v = tree[p];
      return typeof v === "string" && !v.startsWith("-> ") ? v : null;
    },
    linkName: (p) => {
      const v = tree[p];
      return typeof v === "string" && v.startsWith("-> ") ? (v.split("/").at(-1) ?? null) : null;
    },
  };
}

// What the guest's sysfs showed of the NIC (scripts/capture-tpm-event-log.ts prints it).
const guest = sysfs({
  "sys/devices": ["pci0000:00", "platform", "system", "virtual"],
  "sys/devices/pci0000:00": ["0000:00:00.0", "0000:00:02.0", "0000:00:03.0", "0000:00:1f.0"],
  "sys/devices/pci0000:00/firmware_node/uid": "0",
  "sys/bus/pci/devices/0000:00:03.0/vendor": "0x1af4",
  "sys/bus/pci/devices/0000:00:03.0/device": "0x1000",
  "sys/bus/pci/devices/0000:00:03.0/subsystem_vendor": "0x1af4",
  "sys/bus/pci/devices/0000:00:03.0/subsystem_device": "0x0001",
  "sys/bus/pci/devices/0000:00:03.0/driver": "-> ../../../bus/pci/drivers/virtio-pci",
});
const NIC = {
  address: "0000:00:03.0",
  path: "PciRoot(0x0)/Pci(0x3,0x0)/Offset(0x12800,0x3CDFF)",
  vendorId: "1af4",
  deviceId: "1000",
  vendor: "Red Hat, Inc.",
  device: "Virtio network device",
  driver: "virtio-pci",
};

describe("the option ROMs the firmware ran", () => {
  it("finds the virtio-net NIC's ROM driver in PCR 2 and names the device at 0000:00:03.0", () => {
    const finding = optionRomFinding(log("virtio-rom.bin"), guest, names);
    expect(finding).toEqual({ kind: "found", devices: [NIC] });
    expect(optionRomWords(finding)).toBe(
      "the firmware ran option ROMs of: 00:03.0 Red Hat, Inc. Virtio network device; enrolling without Microsoft's UEFI CA would stop them",
    );
  });

  it("finds the same under OVMF's Secure Boot build in setup mode", () => {
    expect(optionRomFinding(log("secboot-virtio-rom.bin"), guest, names)).toEqual({
      kind: "found",
      devices: [NIC],
    });
  });

  it("finds none when the NIC has no ROM (OVMF's own virtio-net driver)", () => {
    const finding = optionRomFinding(log("virtio-no-rom.bin"), guest, names);
    expect(finding).toEqual({ kind: "none" });
    expect(optionRomWords(finding)).toBe("no option ROMs ran");
  });

  it("spells a root-bus device's address from the path alone where sysfs has no PCI", () => {
    const finding = optionRomFinding(log("virtio-rom.bin"), sysfs({}), () => NO_PCI_NAMES);
    expect(finding).toEqual({
      kind: "found",
      devices: [
        {
          ...NIC,
          vendorId: null,
          deviceId: null,
          vendor: null,
          device: null,
          driver: null,
        },
      ],
    });
  });

  it("follows a path behind a bridge through sysfs, and keeps the path where it leads nowhere", () => {
    const [rom] = optionRomPaths(log("virtio-rom.bin"));
    // A card behind a root port of the second host bridge.
    const path = Buffer.from(
      [
        "02010c00d041030a01000000", // PciRoot(0x1)
        "01010600001c", // Pci(0x1C,0x0)
        "010106000000", // Pci(0x0,0x0)
        "7fff0400", // the end
      ].join(""),
      "hex",
    );
    const nodes = devicePathNodes(path);
    expect(devicePathText(nodes)).toBe("PciRoot(0x1)/Pci(0x1C,0x0)/Pci(0x0,0x0)");
    const server = sysfs({
      "sys/devices": ["pci0000:00", "pci0000:80"],
      "sys/devices/pci0000:00/firmware_node/uid": "0",
      "sys/devices/pci0000:80/firmware_node/uid": "1",
      "sys/devices/pci0000:80": ["0000:80:1c.0", "0000:80:1f.0"],
      "sys/devices/pci0000:80/0000:80:1c.0": ["0000:81:00.0", "0000:81:00.1"],
    });
    expect(pciAddress(nodes, server)).toBe("0000:81:00.0");
    expect(pciAddress(nodes, sysfs({}))).toBeNull();
    expect(pciAddress(nodes, sysfs({ "sys/devices": ["pci0000:00"] }))).toBeNull();
    // sysfs has host bridges, and none holds 00:03.0: the address stays unknown.
    expect(rom && pciAddress(rom, server)).toBeNull();
  });

  it("names a driver loaded from a file by its path, with no PCI address", () => {
    // PciRoot(0x0)/Pci(0x2,0x0)/.../File: the USB controller, then a file on the stick.
    const nodes = devicePathNodes(
      Buffer.from(
        [
          "02010c00d041030a00000000", // PciRoot(0x0)
          "010106000002", // Pci(0x2,0x0)
          "04040a005c0041000000", // File(\A)
          "7fff0400", // the end
        ].join(""),
        "hex",
      ),
    );
    expect(pciAddress(nodes, guest)).toBeNull();
    expect(devicePathText(nodes)).toBe("PciRoot(0x0)/Pci(0x2,0x0)/Path(4,4,5C0041000000)");
  });

  it("writes a PCI Express host bridge as PcieRoot and follows it as any other", () => {
    const nodes = devicePathNodes(
      Buffer.from(["02010c00d041080a00000000", "010106000003", "7fff0400"].join(""), "hex"),
    );
    expect(devicePathText(nodes)).toBe("PcieRoot(0x0)/Pci(0x3,0x0)");
    expect(pciAddress(nodes, guest)).toBe("0000:00:03.0");
  });

  it("says in one line why it could not check", () => {
    const unknown = (why: "no TPM" | "no event log"): OptionRomFinding => ({
      kind: "unknown",
      why,
      detail: null,
    });
    expect(optionRomWords(unknown("no TPM"))).toBe("could not check: no TPM");
    expect(optionRomWords(unknown("no event log"))).toBe("could not check: no TPM event log");
    expect(
      optionRomWords({
        kind: "unknown",
        why: "unreadable event log",
        detail: "the TPM event log is damaged at byte 40: it is cut short",
      }),
    ).toBe(
      "could not check: the TPM event log does not parse (the TPM event log is damaged at byte 40: it is cut short)",
    );
  });
});
