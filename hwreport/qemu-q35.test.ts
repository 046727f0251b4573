// The sysfs walk and the boot-path verdict against a tree captured from a real QEMU guest
// (scripts/capture-qemu-sysfs.ts): q35 under OVMF, the stick's Debian kernel 6.1, with a
// virtio-blk, an NVMe and an AHCI disk, the stick as USB storage behind xHCI, a virtio-net
// and an e1000e port. The NVMe disk sits behind a PCIe root port, whose pcieport driver is
// built into Debian's kernel; every other driver of these chains is a module there. The
// releases' boot-modules.json are those of real builds, one built without nvme
// (testing/release-variant.ts).
import { readdir, readFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import type { BootModules } from "../formats/boot-modules.ts";
import { lookupPciNames, parsePciIds } from "../formats/pci-ids.ts";
import { bootPathOf, busOf, judgeChain, missingOf, modulesOf } from "../hardware/boot-path.ts";
import { classifyDisk } from "../hardware/disks/classify.ts";
import type { ContentProbe, Disk, DiskFacts, MissingDrivers } from "../hardware/disks/index.ts";
import { findMissingDrivers } from "../hardware/missing-drivers.ts";
import { findDisks, findNics } from "../hardware/sysfs.ts";
import { renderReport } from "./render.ts";
import { buildReport } from "./report.ts";

const FIXTURES = new URL("./fixtures/", import.meta.url).pathname;
const ROOT = join(FIXTURES, "qemu-q35");
const boot = async (file: string) =>
  bootPathOf("1.0.0", JSON.parse(await readFile(join(FIXTURES, file), "utf8")) as BootModules);
const full = await boot("qemu-q35-release-boot-modules.json");
const noNvme = await boot("qemu-q35-release-without-nvme-boot-modules.json");

const level = (
  device: string,
  subsystem: string | null,
  driver: string | null,
  module: string | null,
  modalias: string | null,
) => ({ device, subsystem, driver, module, builtin: false, modalias });

const XHCI = level(
  "pci0000:00/0000:00:02.0",
  "pci",
  "xhci_hcd",
  "xhci_pci",
  "pci:v00001B36d0000000Dsv00001AF4sd00001100bc0Csc03i30",
);
const USB = "pci0000:00/0000:00:02.0/usb2";

describe("the sysfs walk, on a QEMU q35 guest (captured)", async () => {
  const disks = await findDisks(ROOT);
  const disk = (name: string) => disks.find((d) => d.name === name);

  it("finds the four disks", () => {
    expect(disks.map((d) => [d.name, busOf(d.chain)])).toEqual([
      ["nvme0n1", "nvme"],
      ["sda", "sata"],
      ["sdb", "usb"],
      ["vda", "virtio"],
    ]);
  });

  it("NVMe behind a root port: nvme (module nvme), then pcieport, built in; the controller and namespace are plumbing", () => {
    expect(disk("nvme0n1")).toEqual({
      name: "nvme0n1",
      size: 8 * 1024 ** 3,
      model: "QEMU NVMe Ctrl",
      serial: "liken-nvme",
      removable: false,
      readOnly: false,
      chain: [
        level(
          "pci0000:00/0000:00:05.0/0000:01:00.0",
          "pci",
          "nvme",
          "nvme",
          "pci:v00001B36d00000010sv00001AF4sd00001100bc01sc08i02",
        ),
        {
          ...level(
            "pci0000:00/0000:00:05.0",
            "pci",
            "pcieport",
            "pcieport",
            "pci:v00001B36d0000000Csv00001B36sd00000000bc06sc04i00",
          ),
          builtin: true,
        },
      ],
    });
  });

  it("AHCI/SATA: sd (module sd_mod) on the SCSI disk, then ahci; ata1 and the SCSI host are plumbing", () => {
    expect(disk("sda")).toEqual({
      name: "sda",
      size: 16 * 1024 ** 3,
      model: "QEMU HARDDISK",
      serial: null,
      removable: false,
      readOnly: false,
      chain: [
        level(
          "pci0000:00/0000:00:03.0/ata1/host0/target0:0:0/0:0:0:0",
          "scsi",
          "sd",
          "sd_mod",
          "scsi:t-0x00",
        ),
        level(
          "pci0000:00/0000:00:03.0",
          "pci",
          "ahci",
          "ahci",
          "pci:v00008086d00002922sv00001AF4sd00001100bc01sc06i01",
        ),
      ],
    });
  });

  it("USB storage: sd, usb-storage on the interface, usb (usbcore) on the device and the root hub, xhci_hcd (xhci_pci)", () => {
    expect(disk("sdb")).toMatchObject({
      size: 387072 * 512,
      model: "QEMU HARDDISK",
      removable: true,
    });
    expect(disk("sdb")?.chain).toEqual([
      level(
        `${USB}/2-1/2-1:1.0/host12/target12:0:0/12:0:0:0`,
        "scsi",
        "sd",
        "sd_mod",
        "scsi:t-0x00",
      ),
      level(
        `${USB}/2-1/2-1:1.0`,
        "usb",
        "usb-storage",
        "usb_storage",
        "usb:v46F4p0001d0000dc00dsc00dp00ic08isc06ip50in00",
      ),
      level(`${USB}/2-1`, "usb", "usb", "usbcore", null),
      level(USB, "usb", "usb", "usbcore", null),
      XHCI,
    ]);
  });

  it("virtio-blk: virtio_blk on the virtio device, virtio-pci (module virtio_pci) on the PCI function", () => {
    expect(disk("vda")).toMatchObject({ size: 4 * 1024 ** 3, serial: "liken-virtio" });
    expect(disk("vda")?.chain).toEqual([
      level(
        "pci0000:00/0000:00:04.0/virtio0",
        "virtio",
        "virtio_blk",
        "virtio_blk",
        "virtio:d00000002v00001AF4",
      ),
      level(
        "pci0000:00/0000:00:04.0",
        "pci",
        "virtio-pci",
        "virtio_pci",
        "pci:v00001AF4d00001001sv00001AF4sd00000002bc01sc00i00",
      ),
    ]);
  });

  it("NICs: e1000e and virtio_net with MAC, carrier and speed of a live link", async () => {
    const nics = await findNics(ROOT);
    expect(nics).toEqual([
      {
        name: "eth0",
        mac: "52:54:00:12:34:57",
        carrier: true,
        speed: 1000,
        operstate: "up",
        chain: [
          level(
            "pci0000:00/0000:00:07.0",
            "pci",
            "e1000e",
            "e1000e",
            "pci:v00008086d000010D3sv00008086sd00000000bc02sc00i00",
          ),
        ],
      },
      {
        name: "eth1",
        mac: "52:54:00:12:34:56",
        carrier: true,
        speed: null, // virtio-net says -1: unknown
        operstate: "up",
        chain: [
          level(
            "pci0000:00/0000:00:06.0/virtio1",
            "virtio",
            "virtio_net",
            "virtio_net",
            "virtio:d00000001v00001AF4",
          ),
          level(
            "pci0000:00/0000:00:06.0",
            "pci",
            "virtio-pci",
            "virtio_pci",
            "pci:v00001AF4d00001000sv00001AF4sd00000001bc02sc00i00",
          ),
        ],
      },
    ]);
  });
});

describe("the boot-path verdict of real releases on the QEMU q35 guest", async () => {
  const disks = await findDisks(ROOT);
  const judged = (name: string, b = full) =>
    judgeChain(disks.find((d) => d.name === name)?.chain ?? [], b);

  it("a full release carries every module of the NVMe, SATA and virtio chains; the built-in port driver it cannot name", () => {
    expect(judged("nvme0n1").map((l) => [l.module, l.boot])).toEqual([
      ["nvme", "carried"],
      ["pcieport", "unknown"],
    ]);
    expect(missingOf(judged("nvme0n1"))).toEqual([]);
    for (const name of ["sda", "vda"]) {
      expect(
        judged(name).map((l) => l.boot),
        name,
      ).toEqual(judged(name).map(() => "carried"));
    }
    expect(modulesOf(judged("sda"))).toEqual(["sd_mod", "ahci"]);
    expect(modulesOf(judged("vda"))).toEqual(["virtio_blk", "virtio_pci"]);
  });

  it("a release built --without-module nvme misses exactly nvme, for the NVMe disk only", () => {
    expect(missingOf(judged("nvme0n1", noNvme))).toEqual(["nvme"]);
    expect(missingOf(judged("sda", noNvme))).toEqual([]);
    expect(missingOf(judged("vda", noNvme))).toEqual([]);
  });

  it("neither release can boot from USB storage (the stick is removable, so never a target anyway)", () => {
    expect(missingOf(judged("sdb"))).toEqual(["usb_storage", "usbcore", "xhci_pci"]);
  });

  it("what install, plan and the menu are told: by kernel name", async () => {
    const missing = await findMissingDrivers(
      {
        version: "1.0.0",
        modules: JSON.parse(
          await readFile(join(FIXTURES, "qemu-q35-release-without-nvme-boot-modules.json"), "utf8"),
        ),
      },
      ROOT,
    );
    const of = (name: string) => missing({ name } as Parameters<typeof missing>[0]);
    expect(["nvme0n1", "sda", "vda"].map(of)).toEqual([["nvme"], [], []]);
  });
});

describe("the report on the stick in the QEMU q35 guest", async () => {
  const modules = JSON.parse(
    await readFile(join(FIXTURES, "qemu-q35-release-without-nvme-boot-modules.json"), "utf8"),
  ) as BootModules;
  const blank: ContentProbe = {
    signatures: [],
    found: [],
    mbrPartitions: 0,
    headZero: true,
    tailZero: true,
    exclusive: true,
    claim: { state: "none" },
    failed: [],
  };
  // The disk inventory as the stick sees it: sdb is the stick (removable), the rest blank.
  const inventory = async (fill: MissingDrivers | undefined): Promise<Disk[]> =>
    (await findDisks(ROOT)).map((d) => {
      const facts: DiskFacts = {
        path: `/dev/${d.name}`,
        name: d.name,
        kind: "block",
        deviceType: "disk",
        size: d.size,
        logicalSectorSize: 512,
        physicalSectorSize: 512,
        rotational: false,
        readOnly: d.readOnly,
        removable: d.removable,
        holders: [],
        mounts: [],
        swap: false,
        partitions: [],
        bootMedium: d.removable,
        missingModules: [],
      };
      return classifyDisk({ ...facts, missingModules: fill?.(facts) ?? [] }, blank);
    });
  const report = await buildReport({
    root: ROOT,
    release: { version: "1.0.0", modules },
    inventory: async () => ({ system: null, cpu: null, memory: null, problems: [] }),
    disks: inventory,
  });

  it("leaves the stick's own dm-verity mappings (dm-0, dm-1) out of Disks, and keeps every real disk", async () => {
    // The capture holds them as the stick's /sys/block does: its root and the release's.
    expect((await readdir(join(ROOT, "sys/block"))).filter((n) => n.startsWith("dm-"))).toEqual([
      "dm-0",
      "dm-1",
    ]);
    expect(report.disks.map((d) => d.name)).toEqual(["nvme0n1", "sda", "sdb", "vda"]);
    expect(renderReport(report)).not.toContain("dm-");
  });

  it("names nvme for the NVMe disk only: the stick's own USB chain is no problem, though its block says so", () => {
    expect(report.problems.filter((p) => p.reason === "missing-driver")).toEqual([
      expect.objectContaining({
        subject: "nvme0n1",
        message: "nvme0n1 needs nvme, which release 1.0.0 cannot load at boot",
      }),
    ]);
    expect(report.disks.map((d) => [d.name, d.verdict, d.missingModules])).toEqual([
      ["nvme0n1", "unsupported", ["nvme"]],
      ["sda", "blank", []],
      ["sdb", "ineligible", ["usb_storage", "usbcore", "xhci_pci"]],
      ["vda", "blank", []],
    ]);
  });
});

describe("the controllers of the QEMU q35 guest's disks and NICs", async () => {
  // An excerpt of Debian 12's pci.ids, as the report on "/" reads one (hwreport/pci-names.ts).
  const pciIds = await readFile(join(FIXTURES, "pci.ids"), "utf8");
  const asked: unknown[] = [];
  const report = await buildReport({
    root: ROOT,
    inventory: async () => ({ system: null, cpu: null, memory: null, problems: [] }),
    disks: async () => [],
    pciNames: (ids) => {
      asked.push(...ids);
      return lookupPciNames(pciIds, ids);
    },
  });
  const controller = (name: string) =>
    (report.disks.find((d) => d.name === name) ?? report.nics.find((n) => n.kernelName === name))
      ?.controller;

  it("is the first PCI device of each chain, named by pci.ids, looked up once for all", () => {
    expect(controller("nvme0n1")).toEqual({
      driver: "nvme",
      vendorId: "1b36",
      deviceId: "0010",
      subsystemVendorId: "1af4",
      subsystemDeviceId: "1100",
      vendor: "Red Hat, Inc.",
      device: "QEMU NVM Express Controller",
      subsystem: null,
    });
    expect(controller("sda")).toMatchObject({
      driver: "ahci",
      vendor: "Intel Corporation",
      device: "82801IR/IO/IH (ICH9R/DO/DH) 6 port SATA Controller [AHCI mode]",
      subsystem: "Red Hat, Inc. QEMU Virtual Machine",
    });
    // The stick on USB: the host controller it hangs off.
    expect(controller("sdb")).toMatchObject({
      driver: "xhci_hcd",
      vendorId: "1b36",
      deviceId: "000d",
    });
    expect(controller("vda")).toMatchObject({
      driver: "virtio-pci",
      device: "Virtio block device",
    });
    expect(controller("eth0")).toMatchObject({
      driver: "e1000e",
      device: "82574L Gigabit Network Connection",
    });
    expect(asked).toHaveLength(6);
  });

  it("reads in the text as the driver, then the vendor, the device and the card", () => {
    const text = renderReport(report);
    expect(text).toContain(
      "  sda  16 GiB  sata  QEMU HARDDISK\n    controller  ahci (Intel Corporation 82801IR/IO/IH (ICH9R/DO/DH) 6 port SATA Controller [AHCI mode]; Red Hat, Inc. QEMU Virtual Machine)\n    drivers     sd (sd_mod) < ahci (ahci)\n",
    );
    expect(text).toContain("    controller  nvme (Red Hat, Inc. QEMU NVM Express Controller)\n");
    expect(text).toMatch(
      /\n {4}controller {2}e1000e \(Intel Corporation 82574L Gigabit Network Connection\)\n/,
    );
  });

  it("is the vendor alone where pci.ids lacks the device, and the driver alone where it lacks both", async () => {
    const names = parsePciIds(pciIds);
    const partial = await buildReport({
      root: ROOT,
      inventory: async () => ({ system: null, cpu: null, memory: null, problems: [] }),
      disks: async () => [],
      pciNames: () => ({ ...names, devices: {} }),
    });
    const text = renderReport(partial);
    expect(text).toContain("    controller  nvme (Red Hat, Inc.)\n");
    // A tree other than "/" is not this machine: its names are none, unless given.
    const none = await buildReport({
      root: ROOT,
      inventory: async () => ({ system: null, cpu: null, memory: null, problems: [] }),
      disks: async () => [],
    });
    expect(none.disks.find((d) => d.name === "nvme0n1")?.controller).toMatchObject({
      driver: "nvme",
      vendorId: "1b36",
      deviceId: "0010",
      vendor: null,
      device: null,
      subsystem: null,
    });
    expect(renderReport(none)).toContain("    controller  nvme\n");
  });
});
