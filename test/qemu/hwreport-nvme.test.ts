// The hardware report's boot-path verdict on a real machine: the stick under OVMF and TCG
// with a blank virtio disk and a blank NVMe disk, and a release built without the nvme
// module. An unattended install restricted to the NVMe disk (liken.disks=/dev/nvme0n1)
// refuses with MissingDriver and writes nothing; in the shell the failed install leaves,
// the report names nvme for that disk, its proposed layout uses only the virtio disk, and
// its copy lands on the stick's payload (--save /payload/reports). A second stick boots to
// its menu: Hardware report there saves the report onto the payload, read back in the Shell.
// The machine has a virtio-net NIC with acpi-index 1 (a server's first onboard port): the
// report names it eno1, the name leader-1 declares, with the kernel's eth0 and its driver;
// the stick's dmidecode fills in the serial; the stick's own disk reads boot-medium alone.
// The machine has a TPM 2.0 (swtpm on QEMU's tpm-crb), and OVMF runs the NIC's option ROM
// (QEMU's efi-virtio.rom): the report's TPM section names the NIC behind its root port.
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from "vitest";
import type { HwReport } from "../../hwreport/types.ts";
import { cachedRelease, cachedStick } from "../../testing/cached-build.ts";
import { startSwtpm } from "../../testing/swtpm.ts";
import { contentDigest, sparseFile } from "../disk-files.ts";
import { shell, waitForShell } from "./guest-shell.ts";
import { startVm, type Vm } from "./harness.ts";

// small.toml's layout; leader-1 declares eno1.
const MANIFEST = "test/fixtures/manifests/good/ports-modules.toml";
// acpi-index reaches the guest behind a root port on q35 (testing/qemu/machine.ts, NicSpec).
const ENO1 = { model: "virtio", acpiIndex: 1, rootPort: true } as const;
const GIB = 1024 ** 3;
let dir: string;
let stick: string;
let menuStick: string;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "liken-qemu-hwreport-"));
  const release = await cachedRelease({ version: "1.0.0", withoutModules: ["nvme"] });
  stick = await cachedStick({
    manifest: MANIFEST,
    releaseDir: release,
    append: ["liken.install=leader-1", "liken.disks=/dev/nvme0n1"],
  });
  menuStick = await cachedStick({ manifest: MANIFEST, releaseDir: release });
}, 600_000);
afterAll(() => rm(dir, { recursive: true, force: true }));

/** A file of the guest, as one base64 line between markers the typed command never shows. */
async function guestFile(vm: Vm, path: string): Promise<Buffer> {
  const line = await shell(
    vm,
    `echo "file""-begin $(base64 -w 0 < ${path}) file""-end"`,
    /^file-begin \S* file-end$/,
    120_000,
  );
  return Buffer.from(line.split(" ")[1] ?? "", "base64");
}

describe("a release without nvme, on a machine with a virtio and an NVMe disk", () => {
  it("refuses to install onto the NVMe disk alone (MissingDriver); the report names nvme and lays out only the virtio disk", async () => {
    const virtio = await sparseFile(join(dir, "virtio.img"), 4 * GIB);
    const nvme = await sparseFile(join(dir, "nvme.img"), 4 * GIB);
    const blank = await contentDigest(nvme);
    const swtpm = await startSwtpm(join(dir, "tpm"), "vm");
    onTestFinished(() => swtpm.stop());
    const vm = await startVm({
      stick,
      disks: [
        { path: virtio, bus: "virtio" },
        { path: nvme, bus: "nvme" },
      ],
      nics: [ENO1],
      system: { serial: "LIKEN-QEMU-0001", uuid: "4c494b45-4e00-4000-8000-000000000001" },
      tpmSocket: swtpm.ctrlSocket,
    });

    await vm.waitFor(/liken-stick: payload \/dev\/sd\w+ verified/, 240_000);
    expect(await vm.waitFor(/^liken-stick unattended: (?!warning: )/, 300_000)).toBe(
      "liken-stick unattended: no usable disk: /dev/nvme0n1 needs nvme, which the release cannot load at boot (run liken-stick hwreport with the same release: it names the driver and the disks that need it)",
    );
    // Above the error line, the disks with their verdicts.
    expect(vm.console()).toMatch(/^\/dev\/nvme0n1 .* unsupported +missing-driver:nvme *$/m);
    await vm.waitFor(/the unattended install as leader-1 did not finish/, 30_000);
    await vm.waitFor(/a shell follows/, 10_000);
    await waitForShell(vm);
    // The stick reads both root images with direct I/O (docs/image.md, Speed).
    expect(await shell(vm, "echo dio $(cat /sys/block/loop[01]/loop/dio)", /^dio \d/, 10_000)).toBe(
      "dio 1 1",
    );

    const status = JSON.parse(
      (await guestFile(vm, "/run/liken/install-status.json")).toString("utf8"),
    );
    expect(status).toMatchObject({ phase: "Failed", reason: "MissingDriver", disks: [] });

    await shell(
      vm,
      'liken-stick hwreport --json --manifest /payload/cluster.toml --release /payload/release --as leader-1 --save /payload/reports > /tmp/report.json; echo "report ""exit $?"',
      /^report exit \d+$/,
      180_000,
    ).then((line) => expect(line).toBe("report exit 0"));
    // How long the report takes inside the stick under TCG, for docs/hwreport.md (not a pass mark).
    const real = await shell(
      vm,
      "time liken-stick hwreport --json > /dev/null",
      /^real\s/,
      180_000,
    );
    const bare = await shell(vm, "time liken-stick --help > /dev/null", /^real\s/, 180_000);
    console.log(
      `inside the stick, QEMU TCG: hwreport --json ${real.replace(/\s+/g, " ")}; liken-stick --help ${bare.replace(/\s+/g, " ")}`,
    );
    const report = JSON.parse(
      (await guestFile(vm, "/tmp/report.json")).toString("utf8"),
    ) as HwReport;
    // The menu's copy goes onto the stick's payload (vfat): the same report.
    expect(report.saved).toMatch(/^\/payload\/reports\/[\w.-]+\.json$/);
    const saved = JSON.parse((await guestFile(vm, report.saved as string)).toString("utf8"));
    expect(saved).toEqual(report);

    // The disks, read from sysfs, as the stick's own lsblk lists them: the USB stick, the
    // virtio disk and the NVMe disk with their sizes, models, serials and transports.
    await shell(
      vm,
      'liken-stick disks --json > /tmp/disks.json; lsblk --json --bytes --nodeps --output PATH,SIZE,MODEL,SERIAL,TRAN,ROTA,LOG-SEC,PHY-SEC > /tmp/lsblk.json; echo "listed ""disks"',
      /^listed disks$/,
      120_000,
    );
    const listed = JSON.parse((await guestFile(vm, "/tmp/disks.json")).toString("utf8")) as {
      path: string;
      size: number;
      model?: string;
      serial?: string;
      transport?: string;
      rotational: boolean;
      logicalSectorSize: number;
      physicalSectorSize: number;
    }[];
    const lsblk = JSON.parse((await guestFile(vm, "/tmp/lsblk.json")).toString("utf8"))
      .blockdevices as Record<string, string | number | boolean | null>[];
    await vm.stop();
    const asLsblk = lsblk
      .filter((d) => listed.some((x) => x.path === d.path))
      .map((d) => ({
        path: d.path,
        size: d.size,
        model: (d.model as string | null)?.trim() ?? null,
        serial: (d.serial as string | null)?.trim() ?? null,
        transport: d.tran,
        rotational: d.rota,
        logicalSectorSize: d["log-sec"],
        physicalSectorSize: d["phy-sec"],
      }));
    expect(
      listed.map((d) => ({
        path: d.path,
        size: d.size,
        model: d.model ?? null,
        serial: d.serial ?? null,
        transport: d.transport ?? null,
        rotational: d.rotational,
        logicalSectorSize: d.logicalSectorSize,
        physicalSectorSize: d.physicalSectorSize,
      })),
    ).toEqual(asLsblk);
    expect(listed.map((d) => [d.path, d.transport])).toEqual(
      expect.arrayContaining([
        ["/dev/vda", undefined],
        ["/dev/nvme0n1", "nvme"],
        [expect.stringMatching(/^\/dev\/sd[a-z]$/), "usb"],
      ]),
    );

    console.log(`problems: ${report.problems.map((p) => `${p.reason} ${p.subject}`).join("; ")}`);
    expect(report.release?.version).toBe("1.0.0");
    const disk = (name: string) => report.disks.find((d) => d.name === name);
    expect(disk("nvme0n1")).toMatchObject({
      bus: "nvme",
      modules: ["nvme"],
      missingModules: ["nvme"],
      verdict: "unsupported",
      reasons: ["missing-driver:nvme"],
    });
    expect(disk("nvme0n1")?.chain[0]).toMatchObject({
      driver: "nvme",
      module: "nvme",
      builtin: false,
      boot: "missing",
    });
    expect(disk("vda")).toMatchObject({ bus: "virtio", missingModules: [], verdict: "blank" });
    expect(report.problems.filter((p) => p.reason === "missing-driver")).toEqual([
      expect.objectContaining({
        severity: "error",
        subject: "nvme0n1",
        message: "nvme0n1 needs nvme, which release 1.0.0 cannot load at boot",
      }),
    ]);
    const [layout] = report.layouts;
    expect(layout?.machine).toBe("leader-1");
    expect(layout?.plan.ok && layout.plan.layout.disks.map((d) => d.path)).toEqual(["/dev/vda"]);

    // The NIC as the installed machine will name it, and the declared port it is.
    expect(report.nics).toEqual([
      expect.objectContaining({
        name: "eno1",
        kernelName: "eth0",
        driver: "virtio_net",
        names: expect.objectContaining({ onboard: "eno1" }),
      }),
    ]);
    expect(report.ports).toEqual([
      expect.objectContaining({
        machine: "leader-1",
        port: "eno1",
        exists: true,
        nic: expect.objectContaining({ kernelName: "eth0", driver: "virtio_net" }),
      }),
    ]);
    expect(report.problems.filter((p) => p.subject.startsWith("leader-1/"))).toEqual([]);
    // dmidecode is on the stick: the SMBIOS facts are there, and no tool is missing.
    expect(report.system).toMatchObject({
      serial: "LIKEN-QEMU-0001",
      uuid: "4c494b45-4e00-4000-8000-000000000001",
    });
    expect(report.problems.filter((p) => p.reason === "tool-missing")).toEqual([]);
    // The TPM, and the NIC's option ROM that OVMF ran, found behind the NIC's root port.
    const nicPci = report.nics[0]?.chain.find((l) => l.subsystem === "pci")?.device ?? "";
    expect(nicPci).toMatch(/^pci0000:00\/0000:00:[0-9a-f]{2}\.0\/0000:[0-9a-f]{2}:00\.0$/);
    const nicController = report.nics[0]?.controller;
    expect(nicController?.device).toMatch(/^Virtio (1\.0 )?network device$/);
    expect(report.tpm).toEqual({
      present: true,
      version: "2.0",
      driver: "tpm_crb",
      // swtpm's TCG vendor ID, as the TPM itself answers GetCapability.
      manufacturer: "IBM",
      firmware: expect.stringMatching(/^\d+\.\d+\.\d+\.\d+$/),
      eventLog: "/sys/kernel/security/tpm0/binary_bios_measurements",
      optionRoms: {
        kind: "found",
        devices: [
          {
            address: nicPci.split("/").at(-1),
            path: expect.stringMatching(
              /^PciRoot\(0x0\)\/Pci\(0x[0-9A-F]+,0x0\)\/Pci\(0x0,0x0\)\/Offset\(0x[0-9A-F]+,0x[0-9A-F]+\)$/,
            ),
            // As the NIC's controller reads (behind a PCIe port, QEMU makes it virtio 1.0 only).
            vendorId: "1af4",
            deviceId: nicController?.deviceId,
            vendor: "Red Hat, Inc.",
            device: nicController?.device,
            driver: "virtio-pci",
          },
        ],
      },
    });
    const stickDisk = report.disks.find((d) => d.bus === "usb");
    expect(stickDisk?.reasons).toEqual(["boot-medium"]);

    // Refused before anything was written: the NVMe disk is as blank as it was.
    expect(await contentDigest(nvme)).toBe(blank);
  }, 900_000);

  it("the menu's Hardware report saves the report onto the stick's payload", async () => {
    const vm = await startVm({
      stick: menuStick,
      disks: [
        { path: await sparseFile(join(dir, "menu-virtio.img"), 4 * GIB), bus: "virtio" },
        { path: await sparseFile(join(dir, "menu-nvme.img"), 4 * GIB), bus: "nvme" },
      ],
    });
    await vm.waitFor(/Arrows or j\/k: move/, 360_000);
    // Install as leader-1 and worker-1, wipe and reinstall as each, then Hardware report.
    await vm.type("jjjj");
    await vm.type("\n");
    await vm.waitFor(/Problems \(\d+\)/, 180_000);
    await vm.type("q");
    await vm.waitFor(/Arrows or j\/k: move/, 60_000);
    await vm.type("j");
    await vm.type("\n");
    await vm.waitFor(/liken stick shell: type exit to go back to the menu/, 60_000);
    await vm.type('ls /payload/reports; echo "listed ""reports"\n');
    await vm.waitFor(/^listed reports$/, 60_000);
    const listing = vm
      .console()
      .split("\n")
      .map((l) => l.trim());
    const end = listing.lastIndexOf("listed reports");
    const files = listing.slice(0, end).filter((l) => /^[\w.-]+\.json$/.test(l));
    expect(files).toHaveLength(1);
    const saved = JSON.parse(
      (await guestFile(vm, `/payload/reports/${files[0]}`)).toString("utf8"),
    ) as HwReport;
    await vm.stop();
    expect(saved.saved).toBe(`/payload/reports/${files[0]}`);
    expect(saved.release?.version).toBe("1.0.0");
    expect(saved.disks.find((d) => d.name === "nvme0n1")?.missingModules).toEqual(["nvme"]);
  }, 900_000);
});
