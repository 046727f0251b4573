// The sysfs walk against fixture trees (one captured from this machine with
// fixtures/capture.sh, one written by hand after the kernel's layout for NVMe, AHCI, USB
// storage and Intel NICs), the boot-path verdict, and the report with its layout.
import { mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import type { BootModules } from "../formats/boot-modules.ts";
import { bootPathOf, judgeChain, judgeLevel, missingOf } from "../hardware/boot-path.ts";
import { classifyDisk } from "../hardware/disks/classify.ts";
import type { ContentProbe, Disk, DiskFacts, MissingDrivers } from "../hardware/disks/index.ts";
import { findMissingDrivers } from "../hardware/missing-drivers.ts";
import { findDisks, findNics } from "../hardware/sysfs.ts";
import { readKeys } from "../image-build/secure-boot/keys.ts";
import { signPe } from "../image-build/secure-boot/sign-pe.ts";
import { parseManifest } from "../manifest/index.ts";
import type { Manifest } from "../manifest/types.ts";
import { tinyPe } from "../test/fixtures/tiny-pe.ts";
import { type Inventory, readFirmware, readInventory, withDeadline } from "./inventory.ts";
import { pciIdsFiles } from "./pci-names.ts";
import { renderController, renderReport } from "./render.ts";
import { buildReport } from "./report.ts";

const FIXTURES = new URL("./fixtures/", import.meta.url).pathname;
const QEMU = join(FIXTURES, "qemu-virtio");
const WORKSTATION = join(FIXTURES, "workstation");
const noNvme = JSON.parse(
  await readFile(join(FIXTURES, "boot-modules-no-nvme.json"), "utf8"),
) as BootModules;
const withNvme: BootModules = {
  ...noNvme,
  modules: [
    ...noNvme.modules,
    { name: "nvme", path: "kernel/drivers/nvme/host/nvme.ko", depends: [] },
  ],
  aliases: [...noNvme.aliases, ["pci:v*d*sv*sd*bc01sc08i02*", "nvme"]],
};
const manifestResult = parseManifest(
  await readFile(join(FIXTURES, "cluster.toml"), "utf8"),
  "cluster.toml",
);
if (!manifestResult.ok) throw new Error("fixtures/cluster.toml does not parse");
const manifest: Manifest = manifestResult.manifest;

/** A level as the walk reports it, for exact comparisons. */
const level = (
  device: string,
  subsystem: string | null,
  driver: string | null,
  module: string | null,
  builtin: boolean,
  modalias: string | null,
) => ({ device, subsystem, driver, module, builtin, modalias });

describe("the sysfs walk, on a QEMU machine (captured)", () => {
  it("finds vda: virtio_blk and virtio-pci, both built in", async () => {
    const disks = await findDisks(QEMU);
    expect(disks.map((d) => d.name)).toEqual(["vda"]);
    expect(disks[0]).toEqual({
      name: "vda",
      size: 256 * 1024 ** 3,
      model: null,
      serial: "1776631277070364",
      removable: false,
      readOnly: false,
      chain: [
        level(
          "pci0000:00/0000:00:02.0/virtio1",
          "virtio",
          "virtio_blk",
          "virtio_blk",
          true,
          "virtio:d00000002v00001AF4",
        ),
        level(
          "pci0000:00/0000:00:02.0",
          "pci",
          "virtio-pci",
          "virtio_pci",
          true,
          "pci:v00001AF4d00001042sv00001AF4sd00001042bc01sc80i00",
        ),
      ],
    });
  });

  it("finds eth0 with its MAC, carrier and drivers, and leaves out NICs without a device", async () => {
    const nics = await findNics(QEMU);
    expect(nics.map((n) => n.name)).toEqual(["eth0"]);
    expect(nics[0]).toMatchObject({ mac: "02:fc:00:00:00:01", carrier: true, speed: null });
    expect(nics[0]?.chain.map((l) => [l.driver, l.module, l.builtin])).toEqual([
      ["virtio_net", "virtio_net", true],
      ["virtio-pci", "virtio_pci", true],
    ]);
  });
});

describe("the sysfs walk, on a workstation (the kernel's layout, by hand)", async () => {
  const disks = await findDisks(WORKSTATION);
  const byName = (n: string) => disks.find((d) => d.name === n);

  it("skips loop, ram and zram devices", () => {
    expect(disks.map((d) => d.name)).toEqual(["nvme0n1", "sda", "sdb"]);
  });

  it("NVMe: nvme (module nvme) behind a root port whose pcieport is built in", () => {
    const d = byName("nvme0n1");
    expect(d).toMatchObject({
      size: 1953525168 * 512,
      model: "Samsung SSD 970 EVO Plus 1TB",
      serial: "S4EWNX0R123456",
      removable: false,
    });
    expect(d?.chain).toEqual([
      level(
        "pci0000:00/0000:00:1d.0/0000:3d:00.0",
        "pci",
        "nvme",
        "nvme",
        false,
        "pci:v0000144Dd0000A808sv0000144Dsd0000A801bc01sc08i02",
      ),
      level(
        "pci0000:00/0000:00:1d.0",
        "pci",
        "pcieport",
        "pcieport",
        true,
        "pci:v00008086d0000A330sv00001028sd0000085Cbc06sc04i00",
      ),
    ]);
  });

  it("AHCI: sd (sd_mod) on the SCSI device, ahci on the controller; ATA port, host and target carry no driver", () => {
    expect(byName("sda")?.chain).toEqual([
      level(
        "pci0000:00/0000:00:17.0/ata1/host0/target0:0:0/0:0:0:0",
        "scsi",
        "sd",
        "sd_mod",
        false,
        "scsi:t-0x00",
      ),
      level(
        "pci0000:00/0000:00:17.0",
        "pci",
        "ahci",
        "ahci",
        false,
        "pci:v00008086d0000A352sv00001028sd0000085Cbc01sc06i01",
      ),
    ]);
    expect(byName("sda")?.model).toBe("Samsung SSD 860");
  });

  it("USB storage: sd < usb-storage < usb (usbcore) twice < xhci_hcd (module xhci_pci)", () => {
    const d = byName("sdb");
    expect(d?.removable).toBe(true);
    expect(
      d?.chain.map((l) => [l.device.split("/").at(-1), l.driver, l.module, l.builtin]),
    ).toEqual([
      ["6:0:0:0", "sd", "sd_mod", false],
      ["2-1:1.0", "usb-storage", "usb_storage", false],
      ["2-1", "usb", "usbcore", false],
      ["usb2", "usb", "usbcore", false],
      ["0000:00:14.0", "xhci_hcd", "xhci_pci", false],
    ]);
    expect(d?.chain[1]?.modalias).toBe("usb:v0781p5583d0100dc00dsc00dp00ic08isc06ip50in00");
    expect(d?.chain[2]?.modalias).toBeNull(); // USB devices have none; their interfaces do
  });

  it("NICs: e1000e with a cable; igb without (carrier unreadable = no carrier); lo left out", async () => {
    const nics = await findNics(WORKSTATION);
    expect(
      nics.map((n) => [n.name, n.mac, n.carrier, n.speed, n.operstate, n.chain[0]?.driver]),
    ).toEqual([
      ["eno1", "6c:2b:59:aa:bb:01", true, 1000, "up", "e1000e"],
      ["enp4s0", "6c:2b:59:aa:bb:02", false, null, "down", "igb"],
    ]);
    expect(nics[0]?.chain).toEqual([
      level(
        "pci0000:00/0000:00:1f.6",
        "pci",
        "e1000e",
        "e1000e",
        false,
        "pci:v00008086d000015BBsv00001028sd0000085Cbc02sc00i00",
      ),
    ]);
  });
});

describe("the boot-path verdict", async () => {
  const disks = await findDisks(WORKSTATION);
  const boot = bootPathOf("1.0.0", noNvme);
  const missing = (name: string, b = boot) =>
    missingOf(judgeChain(disks.find((d) => d.name === name)?.chain ?? [], b));

  it("a release without nvme cannot drive the NVMe disk; the rest it can", () => {
    expect(missing("nvme0n1")).toEqual(["nvme"]);
    expect(missing("sda")).toEqual([]);
    expect(missing("sdb")).toEqual([]);
    expect(missing("nvme0n1", bootPathOf("1.0.0", withNvme))).toEqual([]);
  });

  it("gives the installer, the planner and the menu the same verdict, by kernel name", async () => {
    const fact = (name: string) => ({ name }) as DiskFacts;
    const without = await findMissingDrivers({ version: "1.0.0", modules: noNvme }, WORKSTATION);
    expect(["nvme0n1", "sda", "sdb", "loop0", "vdz"].map((n) => without(fact(n)))).toEqual([
      ["nvme"],
      [],
      [],
      [],
      [],
    ]);
    const withIt = await findMissingDrivers({ version: "1.0.0", modules: withNvme }, WORKSTATION);
    expect(withIt(fact("nvme0n1"))).toEqual([]);
  });

  it("says how each level is driven: carried, built in, or a built-in bus driver it cannot name", () => {
    const chain = judgeChain(disks.find((d) => d.name === "nvme0n1")?.chain ?? [], boot);
    expect(chain.map((l) => [l.driver, l.boot])).toEqual([
      ["nvme", "missing"],
      ["pcieport", "unknown"],
    ]);
    expect(judgeChain(disks[0]?.chain ?? [], undefined).every((l) => l.boot === null)).toBe(true);
  });

  it("built-in drivers count when the release carries or builds in the module", async () => {
    const [vda] = await findDisks(QEMU);
    expect(judgeChain(vda?.chain ?? [], boot).map((l) => l.boot)).toEqual(["carried", "carried"]);
    const builtIn = bootPathOf("1.0.0", {
      ...noNvme,
      modules: [],
      builtin: ["virtio_blk", "virtio_pci"],
    });
    expect(judgeChain(vda?.chain ?? [], builtIn).map((l) => l.boot)).toEqual([
      "builtin",
      "builtin",
    ]);
    // a release with neither has no alias for the device either: it cannot say, and does not guess
    const bare = bootPathOf("1.0.0", { kernel: "k", modules: [], builtin: [], aliases: [] });
    expect(judgeChain(vda?.chain ?? [], bare).map((l) => l.boot)).toEqual(["unknown", "unknown"]);
  });

  it("a device with no driver gets the module its modalias loads in the release", () => {
    const unbound = {
      device: "pci0000:00/0000:00:17.0",
      subsystem: "pci",
      driver: null,
      module: null,
      builtin: false,
      modalias: "pci:v00008086d0000A352sv00001028sd0000085Cbc01sc06i01",
    };
    expect(judgeLevel(unbound, boot)).toMatchObject({ module: "ahci", boot: "carried" });
    expect(
      judgeLevel({ ...unbound, modalias: "pci:v0000FFFFd0000FFFFsv0sd0bc08sc80i00" }, boot),
    ).toMatchObject({ module: null, boot: "unknown" });
  });
});

const GIB = 1024 ** 3;
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
const inventory = async (): Promise<Inventory> => ({
  system: {
    manufacturer: "Dell Inc.",
    product: "OptiPlex 7080",
    serial: "7XK2Q93",
    uuid: "4c4c4544-0058-4b10-8032-b7c04f513933",
    baseboard: { manufacturer: "Dell Inc.", product: "0J37D", serial: null },
    firmware: {
      mode: "uefi",
      secureBoot: true,
      secureBootState: "enabled",
      secureBootKeys: {
        pk: ["Dell Inc. Platform Key"],
        kek: ["Microsoft Corporation KEK CA 2011"],
        db: ["Microsoft Windows Production PCA 2011", "Microsoft Corporation UEFI CA 2011"],
      },
      vendor: "Dell Inc.",
      version: "1.21.0",
      date: "2023-05-10",
    },
  },
  cpu: {
    arch: "amd64",
    manufacturer: "Intel",
    brand: "Core i7-10700",
    cores: 16,
    physicalCores: 8,
    sockets: 1,
    speedMax: 4.8,
  },
  memory: { total: 32 * GIB },
  problems: [],
});

/** The disk inventory of the workstation fixture: its sysfs facts, blank contents, the verdict filled in. */
async function workstationDisks(fill: MissingDrivers | undefined): Promise<Disk[]> {
  const found = await findDisks(WORKSTATION);
  return found.map((d) => {
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
      transport: d.name.startsWith("nvme") ? "nvme" : d.removable ? "usb" : "sata",
      holders: [],
      mounts: [],
      swap: false,
      partitions: [],
      bootMedium: false,
      missingModules: [],
      // What the inventory reads from sda's VPD pages, which sysfs's walk does not see.
      ...(d.name === "sda" ? { serial: "WD-WX12A3456789", wwn: "0x50014ee20b6c3a12" } : {}),
    };
    return classifyDisk(fill ? { ...facts, missingModules: fill(facts) } : facts, blank);
  });
}

describe("the report", async () => {
  const report = await buildReport({
    root: WORKSTATION,
    release: { version: "1.0.0", modules: noNvme },
    manifest,
    inventory,
    disks: workstationDisks,
    now: new Date("2024-01-01T00:00:00Z"),
    newInstallId: "00000000-0000-4000-8000-000000000000",
  });

  it("names the driver and the disk, and marks the disk unsupported", () => {
    expect(report.problems[0]).toEqual({
      reason: "missing-driver",
      severity: "error",
      subject: "nvme0n1",
      message: "nvme0n1 needs nvme, which release 1.0.0 cannot load at boot",
      hint: "the layout leaves nvme0n1 out; install on another disk, or use a release whose boot path carries nvme",
    });
    const nvme = report.disks.find((d) => d.name === "nvme0n1");
    expect(nvme).toMatchObject({
      bus: "nvme",
      modules: ["nvme", "pcieport"],
      missingModules: ["nvme"],
      verdict: "unsupported",
      reasons: ["missing-driver:nvme"],
    });
    expect(report.disks.find((d) => d.name === "sda")).toMatchObject({
      bus: "sata",
      missingModules: [],
      verdict: "blank",
    });
  });

  it("gives each disk the serial and WWN the disk inventory read", () => {
    expect(report.disks.find((d) => d.name === "sda")).toMatchObject({
      serial: "WD-WX12A3456789",
      wwn: "0x50014ee20b6c3a12",
    });
    expect(renderReport(report)).toMatch(
      /^ {2}sda .* serial WD-WX12A3456789 {2}wwn 0x50014ee20b6c3a12$/m,
    );
  });

  it("leaves the NVMe disk out of the proposed layout", () => {
    const leader = report.layouts.find((l) => l.machine === "leader-1")?.plan;
    if (!leader?.ok) throw new Error("leader-1 has no layout");
    expect(leader.layout.disks.map((d) => d.path)).toEqual(["/dev/sda"]);
    expect(leader.layout.leftOut.find((d) => d.path === "/dev/nvme0n1")).toMatchObject({
      verdict: "unsupported",
      reasons: ["missing-driver:nvme"],
    });
    // worker-1 wants an NVMe system disk, and the only one is unsupported: no layout, said first
    const worker = report.layouts.find((l) => l.machine === "worker-1")?.plan;
    expect(worker?.ok).toBe(false);
    expect(report.problems.map((p) => [p.reason, p.subject])).toEqual([
      ["missing-driver", "nvme0n1"],
      ["port-missing", "leader-1/eno2"],
      // the release fixture carries no igb: a declared port's NIC is judged like a disk
      ["missing-driver", "leader-1/enp4s0"],
      ["no-layout", "worker-1"],
      ["port-no-carrier", "leader-1/enp4s0"],
    ]);
  });

  it("with the release's nvme, the NVMe disk is in the layout", async () => {
    const ok = await buildReport({
      root: WORKSTATION,
      release: { version: "1.0.1", modules: withNvme },
      manifest,
      machine: "worker-1",
      inventory,
      disks: workstationDisks,
    });
    const plan = ok.layouts[0]?.plan;
    expect(ok.layouts.map((l) => l.machine)).toEqual(["worker-1"]);
    expect(plan?.ok && plan.layout.disks.map((d) => d.path)).toEqual(["/dev/nvme0n1"]);
    expect(ok.problems.filter((p) => p.severity === "error")).toEqual([]);
  });

  it("checks the declared ports: a missing port is an error, a port without cable delays each boot", () => {
    expect(report.ports).toEqual([
      {
        machine: "leader-1",
        port: "eno1",
        exists: true,
        carrier: true,
        nic: { kernelName: "eno1", driver: "e1000e", mac: "6c:2b:59:aa:bb:01" },
      },
      {
        machine: "leader-1",
        port: "enp4s0",
        exists: true,
        carrier: false,
        nic: { kernelName: "enp4s0", driver: "igb", mac: "6c:2b:59:aa:bb:02" },
      },
      { machine: "leader-1", port: "eno2", exists: false, carrier: false, nic: null },
    ]);
    expect(
      report.problems.find((p) => p.subject === "leader-1/enp4s0" && p.reason === "missing-driver")
        ?.message,
    ).toBe("port enp4s0 of leader-1 needs igb, which release 1.0.0 does not carry");
    expect(report.problems.find((p) => p.reason === "port-no-carrier")?.message).toBe(
      "port enp4s0 of leader-1 has no carrier; each boot waits up to 30 s for it",
    );
  });

  it("without a release there is no verdict, and the report says so", async () => {
    const r = await buildReport({ root: WORKSTATION, inventory, disks: workstationDisks });
    expect(r.release).toBeNull();
    expect(r.disks.map((d) => [d.name, d.missingModules, d.verdict])).toEqual([
      ["nvme0n1", null, "blank"],
      ["sda", null, "blank"],
      ["sdb", null, "ineligible"],
    ]);
    expect(r.problems.map((p) => p.reason)).toEqual(["no-release"]);
    expect(r.layouts).toEqual([]);
    expect(renderReport(r)).toContain("boot path   not judged (no --release)");
  });

  it("renders problems first, then system, CPU and memory, disks, NICs and the layout", () => {
    const text = renderReport(report);
    const order = [
      "Problems (5)",
      "System",
      "CPU and memory",
      "Disks",
      "NICs",
      "Proposed layout",
    ].map((s) => text.indexOf(`${s}\n`));
    expect(order.every((i) => i >= 0)).toBe(true);
    expect([...order].sort((a, b) => a - b)).toEqual(order);
    expect(text).toContain("nvme (nvme) MISSING < pcieport (built in)");
    expect(text).toContain(
      "sd (sd_mod) < usb-storage (usb_storage) < usb (usbcore) < usb (usbcore) < xhci_hcd (xhci_pci)",
    );
    expect(text).toContain("firmware    UEFI, Secure Boot on; Dell Inc. 1.21.0 (2023-05-10)");
  });
});

describe("firmware and deadlines", () => {
  const dirs: string[] = [];
  afterAll(async () => {
    for (const d of dirs) await rm(d, { recursive: true, force: true });
  });

  it("reads UEFI, the Secure Boot state and the enrolled keys from the efivars", async () => {
    const root = await mkdtemp(join(tmpdir(), "hwreport-"));
    dirs.push(root);
    expect(await readFirmware(root)).toEqual({
      mode: "legacy",
      secureBoot: null,
      secureBootState: null,
      secureBootKeys: null,
    });
    const vars = join(root, "sys/firmware/efi/efivars");
    await mkdir(vars, { recursive: true });
    expect(await readFirmware(root)).toEqual({
      mode: "uefi",
      secureBoot: null,
      secureBootState: null,
      secureBootKeys: null,
    });
    // 4 attribute bytes, then the value.
    const global = (name: string, value: Buffer) =>
      writeFile(
        join(vars, `${name}-8be4df61-93ca-11d2-aa0d-00e098032b8c`),
        Buffer.concat([Buffer.from([6, 0, 0, 0]), value]),
      );
    await global("SecureBoot", Buffer.from([0]));
    await global("SetupMode", Buffer.from([1]));
    expect(await readFirmware(root)).toMatchObject({
      secureBoot: false,
      secureBootState: "setup-mode",
    });
    await global("SetupMode", Buffer.from([0]));
    expect(await readFirmware(root)).toMatchObject({
      secureBoot: false,
      secureBootState: "disabled",
    });
    await global("SecureBoot", Buffer.from([1]));
    await global("PK", await readFile("test/fixtures/keys/cluster/PK.esl"));
    await global("KEK", await readFile("test/fixtures/keys/cluster/KEK.esl"));
    expect(await readFirmware(root)).toEqual({
      mode: "uefi",
      secureBoot: true,
      secureBootState: "enabled",
      secureBootKeys: { pk: ["liken PK afd13149"], kek: ["liken KEK afd13149"], db: [] },
    });
  });

  it("gives up on a call that does not answer", async () => {
    const never = new Promise<number>(() => {});
    expect(await withDeadline(never, 20)).toEqual({ ok: false, why: "no answer within 20 ms" });
    expect(await withDeadline(Promise.resolve(1), 20)).toEqual({ ok: true, value: 1 });
  });
});

describe("NIC names and firmware in the report", () => {
  // A real q35 guest's sysfs (hardware/fixtures/net-names/q35-mixed): udevadm named eth1
  // (an e1000e with acpi-index 3 behind a root port) eno3.
  const Q35 = new URL("../hardware/fixtures/net-names/q35-mixed/", import.meta.url).pathname;
  const none = async () => [];

  it("gives each NIC the name the installed machine gives it, with the kernel's", async () => {
    const r = await buildReport({ root: Q35, inventory, disks: none, kernelLog: none });
    expect(r.nics.find((n) => n.kernelName === "eth1")).toMatchObject({
      name: "eno3",
      driver: "e1000e",
      names: { onboard: "eno3", slot: null, path: "enp2s0" },
      firmware: [],
    });
    expect(r.nics.find((n) => n.kernelName === "eth4")?.name).toBe("enp0s16f0");
    expect(renderReport(r)).toContain("eno3 (kernel: eth1)");
  });

  it("names a firmware file a declared port's driver asked for and the release lacks", async () => {
    const ports = parseManifest(
      'cluster = "c"\n[release]\nversion = "1.0.0"\n[[machines]]\nname = "m"\nrole = "leader"\nports = ["eno3"]\n',
      "m.toml",
    );
    if (!ports.ok) throw new Error("manifest");
    const device = (await findNics(Q35)).find((n) => n.name === "eth1")?.chain[0]?.device ?? "";
    const address = device.split("/").pop();
    const r = await buildReport({
      root: Q35,
      inventory,
      disks: none,
      manifest: ports.manifest,
      release: {
        version: "1.0.0",
        modules: {
          ...noNvme,
          modules: [
            ...noNvme.modules,
            { name: "e1000e", path: "e1000e.ko", depends: [], where: "root" },
          ],
        },
      },
      kernelLog: async () => [
        `e1000e ${address}: Direct firmware load for e1000e/test.bin failed with error -2`,
      ],
    });
    expect(r.nics.find((n) => n.name === "eno3")?.firmware).toEqual([
      { file: "e1000e/test.bin", carried: false },
    ]);
    expect(r.problems.find((p) => p.reason === "missing-firmware")?.message).toBe(
      "port eno3 of m: its driver e1000e asks for firmware e1000e/test.bin, which release 1.0.0 does not carry",
    );
  });
});

describe("the SMBIOS facts", () => {
  it("come from /sys/class/dmi/id without a process, placeholders read as unknown", async () => {
    const root = await mkdtemp(join(tmpdir(), "liken-dmi-"));
    try {
      const dir = join(root, "sys/class/dmi/id");
      await mkdir(dir, { recursive: true });
      const fields: Record<string, string> = {
        sys_vendor: "Dell Inc.",
        product_name: "PowerEdge R650",
        product_serial: "7XK2QH3",
        product_uuid: "4C4C4544-0058-4B10-8032-B7C04F514833",
        board_vendor: "Dell Inc.",
        board_name: "0Y2K8N",
        board_serial: ".7XK2QH3.CNFCP0022Q00XX.",
        bios_vendor: "Dell Inc.",
        bios_version: "1.10.2",
        bios_date: "05/30/2023",
      };
      for (const [f, v] of Object.entries(fields)) await writeFile(join(dir, f), `${v}\n`);
      const { system } = await readInventory(root);
      expect(system).toMatchObject({
        manufacturer: "Dell Inc.",
        product: "PowerEdge R650",
        serial: "7XK2QH3",
        uuid: "4c4c4544-0058-4b10-8032-b7c04f514833",
        baseboard: { manufacturer: "Dell Inc.", product: "0Y2K8N" },
        firmware: { vendor: "Dell Inc.", version: "1.10.2", date: "2023-05-30" },
      });
      await writeFile(join(dir, "product_serial"), "Not Specified\n");
      await writeFile(join(dir, "product_uuid"), "00000000-0000-0000-0000-000000000000\n");
      const placeholders = await readInventory(root);
      expect(placeholders.system).toMatchObject({ serial: null, uuid: null });
    } finally {
      await rm(root, { recursive: true, force: true });
    }
  });
});

describe("the release's signature against the firmware's db", () => {
  const dirs: string[] = [];
  afterAll(async () => {
    for (const d of dirs) await rm(d, { recursive: true, force: true });
  });

  async function firmwareRoot(secureBoot: number, setupMode: number): Promise<string> {
    const root = await mkdtemp(join(tmpdir(), "hwreport-sb-"));
    dirs.push(root);
    const vars = join(root, "sys/firmware/efi/efivars");
    await mkdir(vars, { recursive: true });
    const put = (name: string, value: Buffer) =>
      writeFile(join(vars, name), Buffer.concat([Buffer.from([6, 0, 0, 0]), value]));
    await put("SecureBoot-8be4df61-93ca-11d2-aa0d-00e098032b8c", Buffer.from([secureBoot]));
    await put("SetupMode-8be4df61-93ca-11d2-aa0d-00e098032b8c", Buffer.from([setupMode]));
    await put(
      "db-d719b2cb-3d3a-4596-a3bc-dad00e67656f",
      await readFile("test/fixtures/keys/cluster/db.esl"),
    );
    return root;
  }
  const signedBy = async (keys: string) =>
    signPe(tinyPe(), (await readKeys(`test/fixtures/keys/${keys}`)).signers.db);
  const report = async (root: string, image: Buffer | null) =>
    buildReport({
      root,
      release: { version: "2.0.0", modules: withNvme, image },
      inventory,
      disks: async () => [],
    });

  it("says the firmware starts a release signed with a key its db holds", async () => {
    const r = await report(await firmwareRoot(1, 0), await signedBy("cluster"));
    expect(r.release?.signature).toEqual({
      secureBoot: "enabled",
      verdict: "trusted",
      signer: "liken db afd13149",
    });
    expect(r.problems.map((p) => p.reason)).not.toContain("release-not-trusted");
    expect(renderReport(r)).toContain(
      "release     2.0.0 signed by liken db afd13149, a key this firmware's db holds",
    );
  });

  it("is an error when Secure Boot is on and the release is signed by another key, or not at all", async () => {
    const root = await firmwareRoot(1, 0);
    const other = await report(root, await signedBy("other"));
    expect(other.problems[0]).toMatchObject({
      reason: "release-not-trusted",
      severity: "error",
      message:
        'release 2.0.0 is signed by "liken db ae50ed0b", which this machine\'s Secure Boot db does not hold: its firmware will not start it',
    });
    const unsigned = await report(root, null);
    expect(unsigned.problems[0]?.message).toBe(
      "release 2.0.0 is not signed, and this machine boots with Secure Boot on: its firmware will not start it",
    );
  });

  it("is a note in setup mode, and nothing with Secure Boot off", async () => {
    const setup = await report(await firmwareRoot(0, 1), await signedBy("other"));
    expect(setup.problems.map((p) => [p.reason, p.severity])).toContainEqual([
      "secure-boot-setup-mode",
      "note",
    ]);
    const off = await report(await firmwareRoot(0, 0), null);
    expect(off.release?.signature).toMatchObject({ secureBoot: "disabled", verdict: "unsigned" });
    expect(off.problems.map((p) => p.reason)).not.toContain("release-not-trusted");
  });
});

describe("a controller's names", () => {
  const megaraid = {
    driver: "megaraid_sas",
    vendorId: "1000",
    deviceId: "0079",
    subsystemVendorId: "1028",
    subsystemDeviceId: "1f17",
    vendor: "Broadcom / LSI",
    device: "MegaRAID SAS 2108 [Liberator]",
    subsystem: "Dell PERC H700 Integrated",
  };

  it("read as the driver, then what pci.ids calls the device, then the card", () => {
    expect(renderController(megaraid)).toBe(
      "megaraid_sas (Broadcom / LSI MegaRAID SAS 2108 [Liberator]; Dell PERC H700 Integrated)",
    );
    expect(renderController({ ...megaraid, subsystem: null, device: null })).toBe(
      "megaraid_sas (Broadcom / LSI)",
    );
    expect(renderController({ ...megaraid, subsystem: null, device: null, vendor: null })).toBe(
      "megaraid_sas",
    );
    expect(renderController({ ...megaraid, driver: null, subsystem: null })).toBe(
      "no driver (Broadcom / LSI MegaRAID SAS 2108 [Liberator])",
    );
  });

  it("come from the host's pci.ids first, then the stick's beside the bundle, then a build's in dist/", () => {
    const files = pciIdsFiles();
    expect(files.slice(0, 2)).toEqual(["/usr/share/misc/pci.ids", "/usr/share/hwdata/pci.ids"]);
    // From the sources, "beside the bundle" is this folder, and the checkout's dist/ follows.
    expect(files.slice(2)).toEqual([
      new URL("./pci.ids", import.meta.url).pathname,
      new URL("../dist/pci.ids", import.meta.url).pathname,
    ]);
  });
});
